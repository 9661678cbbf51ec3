// `agent -p` and memory as real child processes (release permission flags) against the fake
// model server: per-turn recall never carries another workspace's text to the model, strict
// mode writes no memory at the end of a run, and a bad memory_dir is one line naming it.

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
