// The GitHub Action run locally: the `run` step of action.yml (its command line and its env
// block, with inputs filled from the test or the declared defaults) executes against the fake
// model server in a simulated Actions environment (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
// RUNNER_TEMP files), and every output the action declares is checked.

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { reply } from "../fakes/model_server.ts";
import { KEY, parseAction, setup, yml } from "./github_action_kit.ts";
import { binWithoutBwrap } from "./no_bwrap_kit.ts";

const model = (url: string) => ({
  base_url: url,
  provider: "chat_completions",
  model: "served-model",
  api_key: KEY,
});

Deno.test("action.yml declares its inputs and takes every output from the run step", () => {
  const { defaults, outputs, env, run } = parseAction();
  assert.deepEqual(outputs, {
    outcome: "outcome",
    exit_code: "exit_code",
    session_id: "session_id",
    report_path: "report_path",
  });
  for (
    const input of [
      "prompt",
      "workdir",
      "mode",
      "token_budget",
      "base_url",
      "provider",
      "model",
      "api_key",
      "needs_human",
      "sandbox",
    ]
  ) {
    assert.ok(Object.values(env).includes(input), `the run step gets input ${input}`);
  }
  assert.equal(defaults.needs_human, "fail");
  assert.equal(defaults.mode, "auto");
  assert.equal(defaults.sandbox, "auto");
  // The sandbox is set up (or the step fails) before the agent is installed and run, and Deno's
  // module cache is kept between runs, keyed on the action's deno.lock.
  const order = ["Set up the shell sandbox", "Install the agent's dependencies", "Run the agent"]
    .map((name) => yml.indexOf(`- name: ${name}`));
  assert.ok(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!)), String(order));
  assert.match(yml, /run: bash "\$GITHUB_ACTION_PATH\/scripts\/action_sandbox\.sh"/);
  assert.match(
    yml,
    /uses: actions\/cache@v4\n\s+with:\n\s+path: \$\{\{ runner\.temp \}\}\/agent-deno-dir\n\s+key: \$\{\{ steps\.lock\.outputs\.key \}\}/,
  );
  assert.match(yml, /\$GITHUB_ACTION_PATH\/deno\.lock/);
  assert.equal(
    (yml.match(/DENO_DIR: \$\{\{ runner\.temp \}\}\/agent-deno-dir/g) ?? []).length,
    2,
    "install and run use the cached module cache",
  );
  assert.ok(!run.includes("${{"), "no input is pasted into the shell command");
  assert.ok(!/-A\b|--allow-all/.test(run));
  assert.match(yml, /deno-version: 2\.9\.6/);
  assert.match(yml, /uses: actions\/upload-artifact@v4/);
});

Deno.test("an ok run: outputs, the report in the job summary, the key only in the environment", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().tool("create", { path: "result.txt", file_text: "done\n" }));
  t.fake.enqueue(reply().text("All done.").usage(80, 5));
  const r = await t.step({
    ...model(t.fake.url),
    prompt: "write the result",
    token_budget: "5000",
  });
  assert.equal(r.code, 0, r.log);
  assert.equal(r.outputs.outcome, "ok");
  assert.equal(r.outputs.exit_code, "0");
  assert.match(r.outputs.session_id!, /^\S+$/);
  assert.equal(r.outputs.report_path, `${t.home}/runner-temp/agent-report-4242.md`);
  assert.match(await Deno.readTextFile(r.outputs.report_path!), /All done\./);
  assert.match(r.summary, /^## agent: ok \(exit 0\)\n/);
  assert.match(r.summary, /All done\./);
  assert.equal(await Deno.readTextFile(`${t.work}/result.txt`), "done\n", "ran in the checkout");
  // The key reached the model server, and nothing the runner shows.
  assert.equal(t.fake.requests[0]!.headers["authorization"], `Bearer ${KEY}`);
  assert.equal((t.fake.requests[0]!.body as { model: string }).model, "served-model");
  for (const shown of [r.log, r.rawOutputs, r.summary]) assert.ok(!shown.includes(KEY));
  t.fake.assertNoViolations();
});

Deno.test("needs a human: warn succeeds with a warning annotation, fail (the default) fails the step", async () => {
  await using t = await setup();
  for (const [choice, code, kind] of [["warn", 0, "warning"], ["", 2, "error"]] as const) {
    t.fake.enqueue(reply().tool("create", { path: "deploy.sh", file_text: "echo hi\n" }));
    const r = await t.step({
      ...model(t.fake.url),
      prompt: "deploy",
      mode: "strict",
      needs_human: choice,
    });
    assert.equal(r.code, code, r.log);
    assert.match(
      r.log,
      new RegExp(`^::${kind} title=agent needs a human::.*session ${r.outputs.session_id}$`, "m"),
    );
    assert.equal(r.outputs.outcome, "needs_human");
    assert.equal(r.outputs.exit_code, "2");
    assert.match(r.outputs.session_id!, /^\S+$/);
    assert.match(r.summary, /^## agent: needs_human \(exit 2\)/);
    await assert.rejects(Deno.stat(`${t.work}/deploy.sh`), Deno.errors.NotFound);
  }
});

Deno.test("a failed run fails the step with an error annotation and still reports its outcome", async () => {
  await using t = await setup();
  const r = await t.step({ ...model(t.fake.url), api_key: "", prompt: "hi" });
  assert.equal(r.code, 1, r.log);
  assert.match(r.log, /^::error title=agent run failed::401 from POST .*No API key was sent/m);
  assert.equal(r.outputs.outcome, "error");
  assert.equal(r.outputs.exit_code, "1");
  assert.match(r.outputs.session_id!, /^\S+$/, "the session of the failed turn");
  assert.match(r.summary, /^## agent: error \(exit 1\)/);
});

Deno.test("a bad input is one error annotation before anything runs", async () => {
  await using t = await setup();
  const r = await t.step({ ...model(t.fake.url), prompt: "hi", needs_human: "maybe" });
  assert.equal(r.code, 1);
  assert.equal(
    r.log.trim(),
    '::error title=agent action input::input needs_human must be fail or warn, not "maybe"',
  );
  assert.equal(r.rawOutputs, "");
  const empty = await t.step({ ...model(t.fake.url), prompt: "  " });
  assert.match(empty.log, /input prompt is required/);
  const budget = await t.step({ ...model(t.fake.url), prompt: "hi", token_budget: "1e3" });
  assert.match(budget.log, /input token_budget must be a positive integer, not "1e3"/);
});

Deno.test("token_budget reaches the agent: a budget smaller than the first prompt sends nothing and fails the step", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().text("never asked"));
  const r = await t.step({
    ...model(t.fake.url),
    prompt: "summarize the repository",
    token_budget: "20",
  });
  assert.equal(r.code, 1, r.log);
  assert.match(r.log, /^::error title=agent run failed::token budget of 20 reached/m);
  assert.equal(r.outputs.outcome, "error");
  assert.equal(r.outputs.exit_code, "1");
  assert.match(await Deno.readTextFile(r.outputs.report_path!), /token_budget/);
  assert.equal(t.fake.requests.length, 0, "no request went out over the budget");
  // The same prompt without the input runs (the default is no budget).
  const unbounded = await t.step({ ...model(t.fake.url), prompt: "summarize the repository" });
  assert.equal(unbounded.code, 0, unbounded.log);
  assert.equal(t.fake.requests.length, 1);
});

Deno.test("a non-default workdir (relative to the checkout) is where the agent works", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.work}/services/api`, { recursive: true });
  await Deno.writeTextFile(`${t.work}/services/api/NOTES.md`, "api notes\n");
  t.fake.enqueue(
    reply().tool("shell", { command: "pwd; cat NOTES.md" }, { id: "s1" })
      .tool("create", { path: "result.txt", file_text: "done\n" }),
  );
  t.fake.enqueue(reply().text("Done in the service."));
  const r = await t.step({
    ...model(t.fake.url),
    prompt: "work on the api",
    workdir: "services/api",
  });
  assert.equal(r.code, 0, r.log);
  assert.equal(r.outputs.outcome, "ok");
  assert.equal(await Deno.readTextFile(`${t.work}/services/api/result.txt`), "done\n");
  await assert.rejects(Deno.stat(`${t.work}/result.txt`), Deno.errors.NotFound);
  const shell = JSON.stringify(t.fake.requests.at(-1)!.body);
  assert.ok(shell.includes(`${t.work}/services/api`), "the shell ran in the workdir");
  assert.ok(shell.includes("api notes"));
});

/** A PATH holding deno and every program of /usr/bin and /bin except bwrap. */
async function pathWithoutBwrap(home: string): Promise<string> {
  return `${dirname(Deno.execPath())}:${await binWithoutBwrap(home)}`;
}

Deno.test("no sandbox on the runner: a refused shell call fails the step instead of a green review", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().tool("shell", { command: "git diff --stat" }, { id: "s1" }));
  t.fake.enqueue(reply().text("Looks fine to me."));
  const r = await t.step({ ...model(t.fake.url), prompt: "review" }, {
    PATH: await pathWithoutBwrap(t.home),
  });
  assert.equal(r.code, 1, r.log);
  assert.match(
    r.log,
    /^::error title=agent run failed::a shell call was refused, so the run did not do its work: sandbox: bubblewrap is not installed/m,
  );
  assert.equal(r.outputs.outcome, "error");
  assert.equal(r.outputs.exit_code, "1");
  assert.match(r.summary, /^## agent: error \(exit 1\)/);
});

Deno.test("sandbox: off runs the shell unsandboxed, and the report says so", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().tool("shell", { command: "echo ran > ran.txt" }, { id: "s1" }));
  t.fake.enqueue(reply().text("Ran it."));
  const r = await t.step({ ...model(t.fake.url), prompt: "run it", sandbox: "off" }, {
    PATH: await pathWithoutBwrap(t.home),
  });
  assert.equal(r.code, 0, r.log);
  assert.equal(await Deno.readTextFile(`${t.work}/ran.txt`), "ran\n");
  assert.match(r.summary, /\*\*Sandbox:\*\* \*\*off \(commands run unsandboxed/);
  const bad = await t.step({ ...model(t.fake.url), prompt: "hi", sandbox: "none" });
  assert.equal(bad.code, 1);
  assert.match(bad.log, /input sandbox must be auto or off, not "none"/);
});
