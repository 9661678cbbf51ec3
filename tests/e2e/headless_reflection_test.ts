// When the end-of-run reflection pass of `agent -p` runs, and that it never delays the
// answer: the result is printed and the report written before reflection starts, a short
// tool-less exchange skips it, and the journal records the pass and its tokens.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { agentArgs, childEnv, headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";

async function setup() {
  const t = await headlessSetup({ reflect: true });
  await Deno.writeTextFile(`${t.work}/notes.txt`, "status: draft\n");
  return t;
}

async function journalEntries(home: string, sessionId: string) {
  const text = await Deno.readTextFile(`${home}/.agent/sessions/${sessionId}.jsonl`);
  return text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
}

Deno.test("a short tool-less exchange skips reflection: one model request, the skip journaled", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().text("Hello."));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "say hello"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(t.fake.requests.length, 1);
  const reflection = (await journalEntries(t.home, result.session_id!)).find((e) =>
    e.type === "reflection"
  );
  assert.equal(reflection?.ran, false);
  assert.match(String(reflection?.skipped), /short exchange with no tool call/);
});

Deno.test("a run with a tool call reflects; its tokens count in the JSON usage, separately and in the total", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().tool("view", { path: "notes.txt" }).usage(50, 5));
  t.fake.enqueue(reply().text("The notes are a draft.").usage(100, 10));
  t.fake.enqueue(reply().text("Nothing durable.").usage(321, 7));
  const report = `${t.home}/report.md`;
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--output", report, "--", "read"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(t.fake.requests.length, 3);
  assert.deepEqual(result.reflection_usage, { input_tokens: 321, output_tokens: 7 });
  assert.equal(result.usage.input_tokens, 150 + 321);
  assert.equal(result.usage.output_tokens, 15 + 7);
  assert.equal(result.final_text, "The notes are a draft.");
  const text = await Deno.readTextFile(report);
  assert.match(text, /\*\*Tokens:\*\* 471 in \/ 22 out/);
  assert.match(text, /\*\*Memory reflection:\*\* 321 in \/ 7 out \(included above\)/);
  const reflection = (await journalEntries(t.home, result.session_id!)).find((e) =>
    e.type === "reflection"
  );
  assert.equal(reflection?.ran, true);
  assert.deepEqual(reflection?.usage, { input_tokens: 321, output_tokens: 7 });
});

Deno.test("reflection stays inside the token budget: it gets only what the run left", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().tool("view", { path: "notes.txt" }).usage(20_000, 50));
  t.fake.enqueue(reply().text("Read them.").usage(20_100, 50));
  // 40,200 used of 100,000: the pass gets 59,800. Its first turn counts a 40,000-token
  // prompt, so its second (at least that again) would not fit and is never sent.
  t.fake.enqueue(reply().tool("memory", { command: "view", path: "/memories" }).usage(40_000, 5));
  t.fake.enqueue(reply().text("Nothing durable."));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "read"],
    { ...t.env, AGENT_TOKEN_BUDGET: "100000" },
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.done_reason, "stop");
  assert.equal(t.fake.requests.length, 3);
  assert.deepEqual(result.reflection_usage, { input_tokens: 40_000, output_tokens: 5 });
  assert.ok(result.usage.input_tokens + result.usage.output_tokens <= 100_000);
});

Deno.test("the answer and the report are out before reflection starts", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().tool("view", { path: "notes.txt" }));
  t.fake.enqueue(reply().text("The notes are a draft."));
  t.fake.enqueue(reply().hang()); // reflection never gets an answer
  const report = `${t.home}/report.md`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...await agentArgs(),
      "-p",
      "--workdir",
      t.work,
      "--output",
      report,
      "--",
      "read the notes",
    ],
    env: childEnv(t.env),
    clearEnv: true,
    cwd: t.home,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Reflection has sent its request (which never gets an answer): by now the report is
  // written and the answer is in the pipe.
  await t.fake.waitForRequests(3);
  assert.match(await Deno.readTextFile(report), /The notes are a draft\./);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
  }
  assert.equal(stdout, "The notes are a draft.\n");
  child.kill("SIGINT"); // ctrl+c aborts the pass; the outcome already given stands
  const status = await child.status;
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  await child.stderr.cancel();
  assert.equal(status.code, 0);
});
