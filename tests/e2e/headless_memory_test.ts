// `agent -p` and memory as real child processes (release permission flags) against the fake
// model server: per-turn recall never carries another workspace's text to the model, strict
// mode writes no memory at the end of a run, a bad memory_dir is one line naming it, reflection
// writes durable memory (its failure never changes the outcome), memory_enabled=false removes
// the tool and recall, and the start-up sweep of expired session and episodic files.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";

async function setup(reflect = false) {
  const t = await headlessSetup({ reflect });
  return Object.assign(t, { memory: `${t.home}/.agent/memory` });
}

/** Every memory file under `root` (the recall index left out). */
function memoryFiles(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, rel: string) => {
    for (const e of Deno.readDirSync(dir)) {
      if (e.name === ".index") continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) visit(`${dir}/${e.name}`, r);
      else out.push(r);
    }
  };
  visit(root, "");
  return out.sort();
}

Deno.test("agent -p: a foreign workspace's memory text never reaches the model request", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.memory}/facts`, { recursive: true });
  await Deno.mkdir(`${t.memory}/preferences`);
  // The foreign file is written first (a low row id is likely, not certain; the every-order
  // unit test in core/memory/recall_snippet_test.ts covers the rest).
  await Deno.writeTextFile(
    `${t.memory}/facts/foreign.md`,
    "---\ncategory: project-fact\nworkspace: /somewhere/else\n---\n# Foreign\nzebra FOREIGN-SECRET text\n",
  );
  await Deno.writeTextFile(
    `${t.memory}/facts/global.md`,
    "---\ncategory: project-fact\nworkspace: global\n---\n# Global\nzebra crossing GLOBALWORD\n",
  );
  await Deno.writeTextFile(
    `${t.memory}/preferences/pref.md`,
    "---\ncategory: preference\n---\n# Pref\nzebra stripes PREFWORD\n",
  );
  t.fake.enqueue(reply().text("Noted."));
  const r = await runAgent(["-p", "--workdir", t.work, "--", "zebra"], t.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(t.fake.requests.length, 1);
  const sent = JSON.stringify(t.fake.requests[0]!.body);
  // Recall did run and each hit carries its own text.
  assert.match(sent, /pref\.md \(preference\) Pref: [^"]*PREFWORD/);
  assert.match(sent, /global\.md \(project-fact\) Global: [^"]*GLOBALWORD/);
  assert.doesNotMatch(sent, /FOREIGN-SECRET/);
  t.fake.assertNoViolations();
});

Deno.test("agent -p --mode strict with reflection on writes no memory file", async () => {
  await using t = await setup(true);
  await Deno.writeTextFile(`${t.work}/notes.txt`, "status: draft\n");
  // A read-only tool call makes the run worth reflecting on; strict mode allows reads.
  t.fake.enqueue(reply().tool("view", { path: "notes.txt" }));
  t.fake.enqueue(reply().text("The notes are a draft."));
  // What a reflection pass would do if it ran.
  t.fake.enqueue(
    reply().tool("memory", {
      command: "create",
      path: "/memories/facts/notes.md",
      file_text: "---\ncategory: project-fact\n---\n# Notes\nThey are a draft.\n",
    }),
  );
  t.fake.enqueue(reply().text("Saved."));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--mode", "strict", "--output-format", "json", "--", "read"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.done_reason, "stop");
  assert.deepEqual(memoryFiles(t.memory), []);
  assert.equal(t.fake.requests.length, 2, "no reflection request was made");
  const journal = (await Deno.readTextFile(`${t.home}/.agent/sessions/${result.session_id}.jsonl`))
    .trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const reflection = journal.find((e) => e.type === "reflection");
  assert.equal(reflection?.ran, false);
  assert.match(String(reflection?.skipped), /strict/);
});

Deno.test("agent -p: a memory_dir that is a file or unwritable is one line naming the setting", async () => {
  await using t = await setup();
  const file = `${t.home}/not-a-dir`;
  await Deno.writeTextFile(file, "x");
  const cases: { args: string[]; env: Record<string, string>; source: RegExp }[] = [
    // The setting names a file (mkdir: "File exists").
    { args: [], env: { AGENT_MEMORY_DIR: file }, source: /env AGENT_MEMORY_DIR/ },
    // A parent is a file (mkdir: "Not a directory").
    { args: ["--memory-dir", `${file}/memory`], env: {}, source: /flag --memory-dir/ },
    // Nowhere anyone may create a directory.
    { args: ["--memory-dir", "/proc/agent-memory"], env: {}, source: /flag --memory-dir/ },
  ];
  for (const c of cases) {
    const r = await runAgent(
      ["-p", "--workdir", t.work, ...c.args, "--", "hi"],
      { ...t.env, ...c.env },
    );
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    const line = lines[0]!;
    assert.match(line, /^agent: memory_dir /, line);
    assert.match(line, c.source, line);
    assert.doesNotMatch(line, /os error|--allow-/, line);
  }
  // From the global settings file: the line names that file.
  await Deno.mkdir(`${t.home}/.agent`, { recursive: true });
  await Deno.writeTextFile(`${t.home}/.agent/settings.toml`, `memory_dir = "${file}"\n`);
  const r = await runAgent(["-p", "--workdir", t.work, "--", "hi"], t.env);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^agent: memory_dir .*global .*settings\.toml/);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  assert.equal(t.fake.requests.length, 0);
});

Deno.test("agent -p --memory-scope workspace: the memory tool refuses another workspace's file; without it, it reads it", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.memory}/facts`, { recursive: true });
  await Deno.writeTextFile(
    `${t.memory}/facts/billing.md`,
    "---\ncategory: project-fact\nworkspace: /srv/billing\n---\nDB password: BILLING-SECRET\n",
  );
  const view = { command: "view", path: "/memories/facts/billing.md" };
  // The second request carries the tool result: that is what the model saw.
  const toolResult = async (args: string[]) => {
    t.fake.enqueue(reply().tool("memory", view));
    t.fake.enqueue(reply().text("Done."));
    const before = t.fake.requests.length;
    const r = await runAgent(["-p", "--workdir", t.work, ...args, "--", "look"], t.env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.stringify(t.fake.requests[before + 1]!.body);
  };
  const scoped = await toolResult(["--memory-scope", "workspace"]);
  assert.doesNotMatch(scoped, /BILLING-SECRET/);
  assert.match(scoped, /belongs to another workspace/);
  const open = await toolResult([]);
  assert.match(open, /BILLING-SECRET/, "the control: the default scope reads it");
  const bad = await runAgent(["-p", "--memory-scope", "nowhere", "--", "x"], t.env);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--memory-scope must be one of all, workspace; got "nowhere"/);
  t.fake.assertNoViolations();
});

Deno.test("after a stop, reflection writes durable memory; its failure never changes the outcome", async () => {
  await using t = await headlessSetup();
  const env = { ...t.env, AGENT_MEMORY_REFLECT: "1" };
  // A tool call makes the run worth reflecting on (a short tool-less one is skipped).
  await Deno.writeTextFile(`${t.work}/Makefile`, "all:\n\tcc main.c\n");
  t.fake.enqueue(reply().tool("view", { path: "Makefile" }));
  t.fake.enqueue(reply().text("The build uses make."));
  t.fake.enqueue(
    reply().tool("memory", {
      command: "create",
      path: "/memories/facts/build.md",
      file_text: "---\ncategory: project-fact\n---\n# Build\nUse make.\n",
    }),
  );
  t.fake.enqueue(reply().text("Saved one fact."));
  const r = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--output-format",
    "json",
    "--",
    "how do I build?",
  ], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as HeadlessResult).final_text, "The build uses make.");
  const fact = await Deno.readTextFile(`${t.home}/.agent/memory/facts/build.md`);
  assert.match(fact, /Use make\./);
  assert.match(fact, new RegExp(`workspace: ${t.work.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));

  // Reflection hits a server error: the run is still ok with the same answer.
  t.fake.enqueue(reply().tool("view", { path: "Makefile" }));
  t.fake.enqueue(reply().text("second answer"));
  const again = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--output-format",
    "json",
    "--",
    "again",
  ], env);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((JSON.parse(again.stdout) as HeadlessResult).outcome, "ok");

  // A needs-human ending skips reflection entirely (no extra model request).
  const before = t.fake.requests.length;
  t.fake.enqueue(reply().tool("ask", { questions: [{ kind: "question", text: "?" }] }));
  const asked = await runAgent(["-p", "--workdir", t.work, "--", "ask me"], env);
  assert.equal(asked.code, 2);
  assert.equal(t.fake.requests.length, before + 1);
});

Deno.test("memory_enabled=false unregisters the memory tool and recall; enabled sends both", async () => {
  await using t = await headlessSetup();
  const toolNames = (i: number) =>
    ((t.fake.requests[i]!.body as { tools?: Array<{ function: { name: string } }> }).tools ?? [])
      .map((x) => x.function.name);
  t.fake.enqueue(reply().text("a"));
  assert.equal(
    (await runAgent(["-p", "--workdir", t.work, "--no-memory", "--", "q"], t.env)).code,
    0,
  );
  assert.ok(!toolNames(0).includes("memory"));
  await Deno.mkdir(`${t.home}/.agent/memory/facts`, { recursive: true });
  await Deno.writeTextFile(
    `${t.home}/.agent/memory/facts/deploy.md`,
    "---\ncategory: project-fact\nworkspace: global\n---\n# Deploys\nDeploys go through the blue pipeline.\n",
  );
  t.fake.enqueue(reply().text("b"));
  assert.equal(
    (await runAgent(["-p", "--workdir", t.work, "--", "how do deploys work?"], t.env)).code,
    0,
  );
  assert.ok(toolNames(1).includes("memory"));
  // Recall rides the last user turn (the volatile channel), not the frozen system prompt.
  const body = t.fake.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> };
  const lastUser = JSON.stringify(body.messages.filter((m) => m.role === "user").at(-1)?.content);
  assert.match(lastUser, /blue pipeline/);
  const system = JSON.stringify(body.messages.find((m) => m.role === "system")?.content);
  assert.doesNotMatch(system, /blue pipeline/);
});

Deno.test("start-up sweep: expired session and episodic files go, fresh ones stay, failures only warn", async () => {
  await using t = await headlessSetup();
  const root = `${t.home}/.agent/memory`;
  const ago = (ms: number) => new Date(Date.now() - ms);
  const DAY = 24 * 3600 * 1000;
  const put = async (rel: string, category: string, mtime: Date) => {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, `---\ncategory: ${category}\n---\n# ${rel}\nnotes\n`);
    await Deno.utime(path, mtime, mtime);
    return path;
  };
  const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
  const oldSession = await put("scratch/yesterday.md", "session", ago(2 * DAY));
  const oldEpisode = await put("episodes/last-winter.md", "episodic", ago(50 * DAY));
  const freshSession = await put("scratch/today.md", "session", ago(3600 * 1000));
  const freshEpisode = await put("episodes/last-week.md", "episodic", ago(7 * DAY));
  // Expired too, but 17 levels deep: the index sees it and the path guard refuses to touch
  // it, so the sweep reports it as not deleted (a real failure, no test seam).
  const deep = await put(
    `${Array.from({ length: 16 }, (_, i) => `d${i}`).join("/")}/s.md`,
    "session",
    ago(2 * DAY),
  );

  // Memory off: no sweep either.
  t.fake.enqueue(reply().text("off"));
  const off = await runAgent(["-p", "--workdir", t.work, "--no-memory", "--", "q"], t.env);
  assert.equal(off.code, 0, off.stderr);
  assert.ok(await exists(oldSession) && await exists(oldEpisode));

  t.fake.enqueue(reply().text("swept"));
  const r = await runAgent(["-p", "--workdir", t.work, "--", "q"], t.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "swept");
  assert.equal(await exists(oldSession), false);
  assert.equal(await exists(oldEpisode), false);
  assert.ok(await exists(freshSession) && await exists(freshEpisode) && await exists(deep));
  const warnings = r.stderr.trim().split("\n");
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(
    warnings[0]!,
    /^agent: warning: memory sweep could not delete 1 expired file: \/memories\/d0\/.*\/s\.md: /,
  );
  // The sweep runs before the memory index is composed: the prompt never lists a deleted file.
  const system = JSON.stringify(
    (t.fake.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> })
      .messages.find((m) => m.role === "system")?.content,
  );
  assert.match(system, /last-week\.md/);
  assert.doesNotMatch(system, /yesterday\.md|last-winter\.md/);
});
