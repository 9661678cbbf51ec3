// An MCP server's form (elicitation) in a headless run, through the real `agent -p` (release
// flags, default sandbox) and tests/mcp/form_server.mjs: nobody can answer, so the run ends
// needs-human (exit 2) with the form in the JSON and the report; resuming with a JSON answer runs
// the call again and the server gets it (defaults applied); `decline` and `cancel` reach the
// server as such; an answer that does not fit the form is refused and the session still waits.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { TEST_SERVERS_DIR } from "../mcp/everything.ts";

async function setup() {
  const t = await headlessSetup();
  await Deno.mkdir(`${t.home}/.agent`);
  await Deno.writeTextFile(
    `${t.home}/.agent/settings.toml`,
    `[mcp_servers.tables]\ncommand = "node"\nargs = [${
      JSON.stringify(`${TEST_SERVERS_DIR}/form_server.mjs`)
    }]\nread_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]\n`,
  );
  const run = (args: string[]) =>
    runAgent(["-p", "--workdir", t.work, "--output-format", "json", ...args], t.env);
  return Object.assign(t, { run });
}

function toolMessages(body: unknown): string[] {
  return (body as { messages: { role: string; content?: unknown }[] }).messages
    .filter((m) => m.role === "tool").map((m) => String(m.content));
}

/** A run whose model calls `book`, ending needs-human on the form. */
async function waitingRun(t: Awaited<ReturnType<typeof setup>>) {
  t.fake.enqueue(reply().tool("mcp__tables__book", {}));
  const r = await t.run(["--output", `${t.home}/report.md`, "--", "book a table"]);
  assert.equal(r.code, 2, r.stderr);
  return JSON.parse(r.stdout) as HeadlessResult;
}

Deno.test("a form in a headless run ends needs-human with the form; resuming with JSON fills it", async () => {
  await using t = await setup();
  const waiting = await waitingRun(t);
  assert.equal(waiting.done_reason, "needs_human");
  const [question] = waiting.questions;
  assert.equal(question?.kind, "elicitation");
  assert.equal(question?.text, "MCP server tables asks: Which day, and for how many?");
  assert.match(question?.detail ?? "", /- date \(string; required\): the day/);
  assert.match(question?.detail ?? "", /- seats \(integer; optional, default 2\)/);
  assert.match(question?.detail ?? "", /Form schema: \{"type":"object"/);
  const report = await Deno.readTextFile(`${t.home}/report.md`);
  assert.match(report, /MCP server tables asks: Which day, and for how many\?/);
  assert.match(report, /- date \(string; required\): the day/);
  assert.match(report, /Form schema: \{"type":"object"/);

  t.fake.enqueue(reply().text("booked"));
  const r = await t.run(["--resume", waiting.session_id!, "--", '{"date": "2026-12-01"}']);
  assert.equal(r.code, 0, r.stderr);
  // The call ran again and the server got the answer with the default seats.
  assert.deepEqual(toolMessages(t.fake.requests[1]!.body), ["booked 2026-12-01 for 2"]);
});

Deno.test("decline and cancel reach the server as such", async () => {
  for (const answer of ["decline", "cancel"]) {
    await using t = await setup();
    const waiting = await waitingRun(t);
    t.fake.enqueue(reply().text("ok"));
    const r = await t.run(["--resume", waiting.session_id!, "--", answer]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(toolMessages(t.fake.requests[1]!.body), [
      answer === "decline" ? "declined" : "cancelled",
    ]);
  }
});

Deno.test("an answer that does not fit the form is refused and the session still waits for one", async () => {
  await using t = await setup();
  const waiting = await waitingRun(t);
  for (const bad of ['{"seats": 3}', '{"date": "2026-12-01", "seats": 11}', "tomorrow"]) {
    const r = await t.run(["--resume", waiting.session_id!, "--", bad]);
    assert.equal(r.code, 1, `${bad}: ${r.stdout}`);
    const result = JSON.parse(r.stdout) as HeadlessResult;
    assert.match(result.error ?? "", /form|JSON object/, bad);
  }
  assert.equal(t.fake.requests.length, 1, "no model request for a refused answer");
  t.fake.enqueue(reply().text("ok"));
  const r = await t.run(["--resume", waiting.session_id!, "--", '{"date":"2026-12-02","seats":4}']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(toolMessages(t.fake.requests[1]!.body), ["booked 2026-12-02 for 4"]);
});
