// `agent -p` as a real child process against the fake model server, with the release
// permission flags. Covers the headless cases end to end.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { sessionIdFromLog } from "../../core/scheduler/run_log.ts";

Deno.test("a tool-calling headless run edits a file, writes the report and exits 0", async () => {
  await using t = await headlessSetup();
  await Deno.writeTextFile(`${t.work}/notes.txt`, "status: draft\n");
  t.fake.enqueue(
    reply().tool("str_replace", { path: "notes.txt", old_str: "draft", new_str: "final" }),
  );
  t.fake.enqueue(reply().text("Marked the notes final.").usage(120, 30));
  const r = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--mode",
    "auto",
    "--output",
    `${t.home}/out/report.md`,
    "--",
    "finalize the notes",
  ], t.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "Marked the notes final.");
  assert.equal(await Deno.readTextFile(`${t.work}/notes.txt`), "status: final\n");
  const report = await Deno.readTextFile(`${t.home}/out/report.md`);
  const mode = (await Deno.stat(`${t.home}/out/report.md`)).mode! & 0o777;
  assert.equal(mode.toString(8), "600", "the report is owner-only, like the session journal");
  assert.match(report, /\*\*Outcome:\*\* ok \(exit 0\)/);
  assert.match(report, /\*\*Done reason:\*\* stop/);
  assert.match(report, /\*\*Model:\*\* served-model/);
  assert.match(report, /finalize the notes/);
  assert.match(report, /Marked the notes final\./);
  // The default sentinel was sent verbatim; the resolved name only shows in the report.
  assert.equal((t.fake.requests[0]!.body as { model: string }).model, "default");
  t.fake.assertNoViolations();
});

Deno.test("strict mode ends with exit 2, the intended edit recorded and not applied; resume applies it", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().tool("create", { path: "deploy.sh", file_text: "echo hi\n" }));
  const r = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--mode",
    "strict",
    "--output-format",
    "json",
    "--output",
    `${t.home}/r.md`,
    "--",
    "add a deploy script",
  ], t.env);
  assert.equal(r.code, 2, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.outcome, "needs_human");
  assert.equal(result.done_reason, "needs_human");
  assert.equal(result.questions[0]!.kind, "approval");
  assert.match(result.questions[0]!.text, /create deploy\.sh/);
  // What the operator approves: the whole new file, as a diff, in the JSON and the report.
  assert.equal(
    result.questions[0]!.detail,
    "--- /dev/null\n+++ b/deploy.sh\n@@ -1,0 +1,1 @@\n+echo hi",
  );
  await assert.rejects(Deno.stat(`${t.work}/deploy.sh`));
  const report = await Deno.readTextFile(`${t.home}/r.md`);
  assert.match(report, /approval:\*\* Strict mode: approve this action\? create deploy\.sh/);
  assert.match(
    report,
    /```diff\n--- \/dev\/null\n\+\+\+ b\/deploy\.sh\n@@ -1,0 \+1,1 @@\n\+echo hi\n```/,
  );
  // The report says how to answer without the dashboard, with this run's session id.
  assert.ok(
    report.includes(
      `resume here: \`agent -p --resume ${result.session_id} -- "<answer>"\``,
    ),
    report,
  );

  t.fake.enqueue(reply().text("Deploy script added."));
  const resumed = await runAgent([
    "-p",
    "--resume",
    result.session_id!,
    "--workdir",
    t.work,
    "--mode",
    "strict",
    "--output-format",
    "json",
    "--",
    "approved",
  ], t.env);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(await Deno.readTextFile(`${t.work}/deploy.sh`), "echo hi\n");
  const second = t.fake.requests[1]!.body as {
    messages: Array<{ role: string; tool_call_id?: string; content?: string }>;
  };
  const toolMsg = second.messages.find((m) => m.role === "tool");
  assert.match(String(toolMsg?.content), /Approved by the operator/);
  t.fake.assertNoViolations();
});

Deno.test("strict mode: a shell call's question carries the command and its directory; text mode says how to resume", async () => {
  await using t = await headlessSetup();
  const work = await Deno.realPath(t.work);
  t.fake.enqueue(reply().tool("shell", { command: "rm -rf build" }));
  const r = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--mode",
    "strict",
    "--output-format",
    "json",
    "--output",
    `${t.home}/r.md`,
    "--",
    "clean up",
  ], t.env);
  assert.equal(r.code, 2, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.questions[0]!.kind, "approval");
  // What the dashboard, the chat notice and the report show: the exact command and where.
  const detail = result.questions[0]!.detail!;
  assert.ok(detail.startsWith(`$ rm -rf build\n(in ${work}; sandbox: `), detail);
  assert.equal(detail.split("\n").length, 2);
  const report = await Deno.readTextFile(`${t.home}/r.md`);
  assert.ok(report.includes(`\n$ rm -rf build\n(in ${work}; sandbox: `), report);

  // Text mode: the question and the resume command on stderr, naming a real session.
  t.fake.enqueue(reply().tool("shell", { command: "make clean" }));
  const text = await runAgent(
    ["-p", "--workdir", t.work, "--mode", "strict", "--", "clean again"],
    t.env,
  );
  assert.equal(text.code, 2, text.stderr);
  assert.equal(text.stdout, "");
  assert.match(text.stderr, /needs a human \(approval\): .*make clean\n/);
  const hint = /^resume with: agent -p --resume (\S+) -- "<answer>"$/m.exec(text.stderr);
  assert.ok(hint, text.stderr);
  assert.notEqual(hint[1], result.session_id);
  const sessions = await runAgent(["sessions"], t.env);
  assert.match(sessions.stdout, new RegExp(`${hint[1]} `));
  t.fake.assertNoViolations();
});

Deno.test("resume runs in the session's saved workdir, not the cwd; another --workdir is refused", async () => {
  await using t = await headlessSetup();
  const elsewhere = `${t.home}/elsewhere`;
  await Deno.mkdir(elsewhere);
  t.fake.enqueue(reply().tool("create", { path: "deploy.sh", file_text: "echo hi\n" }));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--mode", "strict", "--output-format", "json", "--", "add it"],
    t.env,
  );
  assert.equal(r.code, 2, r.stderr);
  const id = (JSON.parse(r.stdout) as HeadlessResult).session_id!;
  const sessions = await runAgent(["sessions"], t.env);
  assert.match(sessions.stdout, new RegExp(`${id} .* ${t.work}\n`));

  // An explicit --workdir naming another folder: refused, nothing applied, session intact.
  const refused = await runAgent(
    ["-p", "--resume", id, "--workdir", elsewhere, "--output-format", "json", "--", "approved"],
    t.env,
    elsewhere,
  );
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    JSON.parse(refused.stdout).error,
    new RegExp(`--workdir ${elsewhere} is not this session's workdir ${t.work}`),
  );
  assert.equal(t.fake.requests.length, 1, "no model call for a refused resume");

  // From another directory, without --workdir: the approved edit lands in the saved workdir.
  t.fake.enqueue(reply().text("Deploy script added."));
  const resumed = await runAgent(
    ["-p", "--resume", id, "--mode", "strict", "--output-format", "json", "--", "approved"],
    t.env,
    elsewhere,
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(await Deno.readTextFile(`${t.work}/deploy.sh`), "echo hi\n");
  assert.deepEqual(await Array.fromAsync(Deno.readDir(elsewhere)), [], "nothing written in cwd");
  t.fake.assertNoViolations();
});

Deno.test("plan mode denies the edit and the run still completes", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().tool("create", { path: "x.txt", file_text: "x" }));
  t.fake.enqueue(reply().text("Plan: create x.txt with x."));
  const r = await runAgent(["-p", "--workdir", t.work, "--mode", "plan", "--", "make x"], t.env);
  assert.equal(r.code, 0, r.stderr);
  await assert.rejects(Deno.stat(`${t.work}/x.txt`));
  const second = t.fake.requests[1]!.body as {
    messages: Array<{ role: string; content?: string }>;
  };
  assert.match(String(second.messages.find((m) => m.role === "tool")?.content), /plan mode/);
});

Deno.test("the model's shell commands cannot read the agent's model key back", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(
    reply().tool("shell", { command: 'echo "key=[$OPENAI_API_KEY] home=[$HOME]"' }),
  );
  t.fake.enqueue(reply().text("done"));
  const env = { ...t.env, OPENAI_API_KEY: "sk-secret-value" };
  const r = await runAgent(["-p", "--workdir", t.work, "--", "show me the key"], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(t.fake.requests[0]!.headers.authorization, "Bearer sk-secret-value");
  const second = t.fake.requests[1]!.body as {
    messages: Array<{ role: string; content?: string }>;
  };
  const result = String(second.messages.find((m) => m.role === "tool")?.content);
  // HOME is the sandbox's scratch directory, not the agent's (issue 14).
  assert.match(result, /key=\[\] home=\[\/tmp\/home\]/);
  assert.ok(!JSON.stringify(second).includes("sk-secret-value"));
});

Deno.test("the ask tool ends with exit 2 and the questions with their kinds in JSON and report", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(
    reply().tool("ask", {
      questions: [{ kind: "question", text: "Which region?" }, {
        kind: "plan",
        text: "Deploy to eu first?",
      }],
    }),
  );
  const r = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--output-format",
    "json",
    "--output",
    `${t.home}/q.md`,
    "--",
    "deploy",
  ], t.env);
  assert.equal(r.code, 2);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.deepEqual(result.questions, [{ kind: "question", text: "Which region?" }, {
    kind: "plan",
    text: "Deploy to eu first?",
  }]);
  const report = await Deno.readTextFile(`${t.home}/q.md`);
  assert.match(report, /- \*\*question:\*\* Which region\?/);
  assert.match(report, /- \*\*plan:\*\* Deploy to eu first\?/);
});

Deno.test("done reasons: token_budget and turn_cap exit 1 with the reason", async () => {
  await using t = await headlessSetup();
  // 20,200 used, and the next prompt holds the 20,200 of this turn: over 30,000, not sent.
  t.fake.enqueue(reply().tool("view", { path: "." }).usage(20_000, 200));
  const budget = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--token-budget",
    "30000",
    "--output-format",
    "json",
    "--",
    "look",
  ], t.env);
  assert.equal(budget.code, 1);
  assert.equal((JSON.parse(budget.stdout) as HeadlessResult).done_reason, "token_budget");

  t.fake.enqueue(reply().tool("view", { path: "." }));
  t.fake.enqueue(reply().tool("search", { glob: "*" }));
  const capped = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--max-turns",
    "2",
    "--output-format",
    "json",
    "--",
    "look",
  ], t.env);
  assert.equal(capped.code, 1);
  assert.equal((JSON.parse(capped.stdout) as HeadlessResult).done_reason, "turn_cap");
});

Deno.test("a dash-leading prompt after -- is a prompt, not an option", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue((req) =>
    reply().text(
      `got: ${
        JSON.stringify(
          (req.body as { messages: Array<{ content: unknown }> }).messages.at(-1)?.content,
        )
      }`,
    )
  );
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--", "--version is what I want explained"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /--version is what I want explained/);
});

Deno.test("a single trailing positional works without --", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("hi"));
  const r = await runAgent(["-p", "--workdir", t.work, "say hi"], t.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "hi");
});

Deno.test("JSON output carries outcome, exit code, done_reason, usage, cost, final text", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("answer").usage(11, 7));
  const r = await runAgent(["-p", "--workdir", t.work, "--output-format", "json", "--", "q"], {
    ...t.env,
    AGENT_JOB_ID: "42",
    AGENT_JOB_NAME: "nightly",
  });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.outcome, "ok");
  assert.equal(result.exit_code, 0);
  assert.equal(result.final_text, "answer");
  assert.deepEqual([result.usage.input_tokens, result.usage.output_tokens], [11, 7]);
  assert.equal(result.cost_usd, null);
  assert.equal(result.job_id, "42");
  assert.equal(result.job_name, "nightly");
});

/** A loopback port with nothing listening on it (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("bad input: each gives a one-line error and exit 1, never a stack trace", async () => {
  await using t = await headlessSetup();
  const port = closedPort();
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [["-p", "--bogus", "--", "x"], {}, /unknown option --bogus/],
    [["-p", "--workdir", `${t.home}/missing`, "--", "x"], {}, /workdir .*missing does not exist/],
    [
      ["-p", "--workdir", t.work, "--output", "/proc/nope/report.md", "--", "x"],
      {},
      /cannot write the report to \/proc\/nope\/report\.md/,
    ],
    [
      ["-p", "--workdir", t.work, "--", "x"],
      { AGENT_BASE_URL: "", AGENT_PROVIDER: "messages" },
      /no API key/,
    ],
    [
      ["-p", "--workdir", t.work, "--", "x"],
      { AGENT_BASE_URL: `http://127.0.0.1:${port}/v1` },
      new RegExp(`Could not connect to http://127\\.0\\.0\\.1:${port}/.*connection refused`),
    ],
    [
      ["-p", "--workdir", t.work, "--mode", "yolo", "--", "x"],
      {},
      /--mode must be one of auto, strict, plan/,
    ],
    [["-p", "--workdir", t.work, "--temperature", "hot", "--", "x"], {}, /temperature/],
    [["-p", "--workdir", t.work], {}, /no prompt/],
  ];
  for (const [args, env, pattern] of cases) {
    const r = await runAgent(args, { ...t.env, ...env });
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, pattern, args.join(" "));
    assert.ok(!/\n\s+at /.test(r.stderr), `stack trace for ${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split("\n").length, 1, `not one line: ${r.stderr}`);
  }
});

Deno.test("a workdir Deno refuses to read is one line naming it, never 'does not exist'", async () => {
  await using t = await headlessSetup();
  const r = await runAgent(["-p", "--workdir", t.work, "--", "x"], t.env, undefined, undefined, [
    `--deny-read=${t.work}`,
  ]);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, `not one line: ${r.stderr}`);
  assert.ok(lines[0]!.startsWith(`agent: workdir ${t.work} cannot be read`), lines[0]);
  assert.match(lines[0]!, /Requires read access/, "Deno's own reason is kept");
  assert.doesNotMatch(lines[0]!, /does not exist|not a directory/);
  assert.equal(t.fake.allRequests.length, 0, "nothing reached the model server");
});

Deno.test("a run that fails before its first turn still gives JSON and a report with the cause", async () => {
  await using t = await headlessSetup();
  const report = `${t.home}/reports/r.md`;
  const noKey = { ...t.env, AGENT_BASE_URL: "", AGENT_PROVIDER: "messages" };
  const args = ["-p", "--workdir", t.work, "--output", report, "--output-format", "json"];
  const r = await runAgent([...args, "--", "hi"], noKey);
  assert.equal(r.code, 1, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.outcome, "error");
  assert.equal(result.exit_code, 1);
  assert.equal(result.done_reason, "error");
  assert.equal(result.session_id, null);
  assert.match(result.error, /no API key/);
  assert.equal(result.report_path, report);
  const md = await Deno.readTextFile(report);
  assert.match(md, /- \*\*Outcome:\*\* error \(exit 1\)/);
  assert.match(md, /- \*\*Error:\*\* .*no API key/);
  assert.match(md, /- \*\*Session:\*\* none/);
  assert.equal(t.fake.requests.length, 0, "no model call was made");
  // A session that does not exist: the same, with the cause named.
  const resumed = await runAgent([...args, "--resume", "nope", "--", "yes"], t.env);
  assert.equal(resumed.code, 1);
  assert.match(JSON.parse(resumed.stdout).error, /nope/);
  assert.match(await Deno.readTextFile(report), /nope/);
});

Deno.test("the Messages wire works end to end too", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().reasoning("hmm").text("messages ok"));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--provider", "messages", "--", "hello"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "messages ok");
  assert.equal(t.fake.requests[0]!.path, "/v1/messages");
  t.fake.assertNoViolations();
});

Deno.test("JSON mode names its session on stderr before the first turn (the outpost's log)", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("done").usage(10, 2));
  const r = await runAgent([
    "-p",
    "--workdir",
    t.work,
    "--output-format",
    "json",
    "--",
    "say done",
  ], t.env);
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(sessionIdFromLog(r.stderr), result.session_id);
  // The journal it names exists before any reply came back.
  assert.ok((await Deno.stat(`${t.home}/.agent/sessions/${result.session_id}.jsonl`)).isFile);
});
