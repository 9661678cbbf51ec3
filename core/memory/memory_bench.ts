// Memory performance with 10,000 files (generated once per bench file in a temp dir).
// Targets: recall query median < 2 ms, full index rebuild < 3 s, index update after one
// write < 5 ms, cached-index composition < 50 ms.

import { openMemory } from "./store.ts";
import { RecallIndex } from "./recall_index.ts";
import { systemClock } from "../ports.ts";

const FILES = 10_000;
const WORKSPACE = "/bench/repo";

// Deterministic pseudo-random text so runs are comparable.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const syllables = ["ka", "lo", "mi", "ra", "ten", "dor", "vel", "sun", "pri", "gam", "ox", "zu"];
const vocab = Array.from({ length: 3000 }, () => {
  const n = 2 + Math.floor(rand() * 3);
  return Array.from({ length: n }, () => syllables[Math.floor(rand() * syllables.length)]).join("");
});
const word = () => vocab[Math.floor(rand() * vocab.length)]!;
const sentence = (n: number) => Array.from({ length: n }, word).join(" ");

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "memory_bench_" }));
const root = `${base}/mem`;
for (const dir of ["facts", "preferences", "episodes", "session", "other"]) {
  Deno.mkdirSync(`${root}/${dir}`, { recursive: true });
}
for (let i = 0; i < FILES; i++) {
  const r = i % 10;
  const [dir, header] = r < 4
    ? ["facts", `category: project-fact\nworkspace: ${WORKSPACE}`]
    : r < 6
    ? ["preferences", "category: preference"]
    : r < 8
    ? ["episodes", `category: episodic\nworkspace: ${WORKSPACE}`]
    : r < 9
    ? ["other", `category: project-fact\nworkspace: /bench/other${i % 7}`]
    : ["session", "category: session"];
  Deno.writeTextFileSync(
    `${root}/${dir}/m${i}.md`,
    `---\n${header}\n---\n# ${sentence(4)}\n${sentence(40)}\n${sentence(30)}\n`,
  );
}

const store = await openMemory({ root, cwd: base, clock: systemClock, workspace: WORKSPACE });
// Typical chat messages: 2 to 8 content words among stop words.
const queries = Array.from({ length: 64 }, (_, i) => {
  const n = 2 + (i % 7);
  return `Can you ${Array.from({ length: n }, word).join(" the ")} for me?`;
});
// A pasted log or document: 200 words (ranked on its most selective terms).
const pasted = Array.from({ length: 16 }, () => sentence(200));
let q = 0;

// A second handle on the same index, to time the index update on its own.
const index = RecallIndex.open(store.root);
const updateText = `---\ncategory: project-fact\nworkspace: ${WORKSPACE}\n---\n# Updated\n${
  sentence(60)
}\n`;
let u = 0;

globalThis.addEventListener("unload", () => {
  index.close();
  store.close();
  Deno.removeSync(base, { recursive: true });
});

Deno.bench("memory: recall query (10k files, per-turn, filtered, top 5)", () => {
  store.recall(queries[q++ % queries.length]!);
});

Deno.bench("memory: recall query, 200-word pasted message", () => {
  store.recall(pasted[q++ % pasted.length]!);
});

Deno.bench("memory: dashboard search (10k files, unfiltered, top 10)", () => {
  store.search(queries[q++ % queries.length]!);
});

Deno.bench("memory: index update after one write (put in a transaction)", () => {
  const rel = `facts/m${(u++ % 1000) * 10}.md`;
  index.transaction(() =>
    index.put(rel, { mtimeMs: Date.now(), size: updateText.length }, updateText)
  );
});

Deno.bench("memory: tool str_replace end to end (read, write, index)", () => {
  const path = "/memories/preferences/m5.md";
  const body = store.readBody(path).body;
  const first = body.split("\n")[1]!;
  store.strReplace(path, first, first.split(" ").reverse().join(" "));
});

Deno.bench("memory: cached-index composition", () => {
  store.cachedIndex();
});

Deno.bench("memory: refresh with nothing changed (stat 10k files)", { n: 20, warmup: 2 }, () => {
  store.refresh();
});

Deno.bench("memory: full index rebuild (10k files)", { n: 5, warmup: 1 }, () => {
  store.rebuildIndex();
});

// The `agent` start-up sweep (cli/setup.ts): right after openMemory, so no second walk.
Deno.bench("memory: start-up sweep, nothing due (refresh: false, 10k files)", () => {
  store.sweep({ refresh: false });
});

Deno.bench("memory: sweep with refresh, nothing due (10k files)", { n: 20, warmup: 2 }, () => {
  store.sweep();
});
