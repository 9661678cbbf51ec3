// `agent -p` as a real child process against the fake model server: a truncated answer,
// a refused `default` model and an empty reply end as errors that say so, in the JSON and in
// the report.

import assert from "node:assert/strict";
import { httpError, reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { loadSession } from "../../core/agent/journal.ts";

async function setup(provider: string) {
  const t = await headlessSetup({
    server: { models: [{ id: "mock-text" }, { id: "mock-tool" }] },
    provider,
    env: { AGENT_MAX_TOKENS: "3" },
  });
  const { home, work, env } = t;
  const run = async () => {
    const r = await runAgent([
      "-p",
      "--workdir",
      work,
      "--output-format",
      "json",
      "--output",
      `${home}/r.md`,
      "--",
      "say hello",
    ], env);
    return {
      code: r.code,
      stderr: r.stderr,
      json: JSON.parse(r.stdout) as HeadlessResult,
      report: await Deno.readTextFile(`${home}/r.md`),
    };
  };
  return Object.assign(t, { run });
}

for (const provider of ["chat_completions", "messages"]) {
  Deno.test(`headless (${provider}): an answer cut off by max_tokens exits 1 with the stop reason`, async () => {
    await using t = await setup(provider);
    t.fake.enqueue(reply().text("Hello from a").stop("max_tokens"));
    const r = await t.run();
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json.outcome, "error");
    assert.equal(r.json.done_reason, "truncated");
    assert.equal(r.json.stop_reason, "max_tokens");
    assert.equal(r.json.final_text, "Hello from a");
    assert.match(r.json.error ?? "", /cut off by max_tokens \(3 tokens\); raise AGENT_MAX_TOKENS/);
    assert.match(r.report, /\*\*Done reason:\*\* truncated/);
    assert.match(r.report, /\*\*Stop reason:\*\* max_tokens/);
  });

  Deno.test(`headless (${provider}): a refused "default" names the served models, not one as the answerer`, async () => {
    await using t = await setup(provider);
    t.fake.enqueue(httpError(400, {
      error: { message: "/v1/messages: Invalid model name passed in model=default." },
    }));
    const r = await t.run();
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.json.error,
      'the server does not accept the model "default"; set AGENT_MODEL to one of: ' +
        "mock-text, mock-tool",
    );
    assert.equal(r.json.model, "default", "the probe's first model never answered");
    assert.equal(r.json.stop_reason, undefined);
  });
}

Deno.test("headless: an empty reply after a text-and-tool turn exits 1 with no final text", async () => {
  await using t = await setup("chat_completions");
  await Deno.writeTextFile(`${t.work}/a.txt`, "a\n");
  t.fake.enqueue(reply().text("Looking.").tool("view", { path: "a.txt" }), reply().usage(0, 0));
  const r = await t.run();
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.json.outcome, "error");
  assert.equal(r.json.done_reason, "error");
  assert.equal(r.json.final_text, "", '"Looking." came before the tool call: not the answer');
  assert.match(r.json.error ?? "", /without an answer \(no text, no tool call, no usage/);
});

Deno.test("headless: the saved session records the model the server served, not the default sentinel", async () => {
  await using t = await setup("chat_completions");
  t.fake.enqueue(reply().text("Hello."));
  const r = await t.run();
  assert.equal(r.code, 0, r.stderr);
  const session = await loadSession(`${t.home}/.agent/sessions`, r.json.session_id!);
  // The meta is written before the server has answered; the outcome says who answered.
  assert.equal(session.meta.model, "default");
  assert.equal(session.lastOutcome?.model, "mock-text");
});
