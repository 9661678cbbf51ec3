// `agent -p` limits and reporting, as a real child process against the fake model server:
// the token budget is enforced before a request (never overshot by a whole turn), set-up
// failures (no prompt, a bad --effort) still print the JSON object and touch no network,
// cost_usd is rounded, and a server echoing the `default` sentinel never names the model.

import assert from "node:assert/strict";
import { type FakeServerOptions, reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { COST_DECIMALS, costOf } from "../../core/pricing/pricing.ts";

const setup = (server: FakeServerOptions = {}) => headlessSetup({ server });

const total = (r: HeadlessResult) => r.usage.input_tokens + r.usage.output_tokens;

Deno.test("a token budget smaller than the first prompt sends no request: usage 0, token_budget, exit 1", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().text("never asked for"));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--token-budget", "20", "--output-format", "json", "--", "hi"],
    t.env,
  );
  assert.equal(r.code, 1, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.outcome, "error");
  assert.equal(result.done_reason, "token_budget");
  assert.ok(total(result) <= 20, `used ${total(result)} of a budget of 20`);
  assert.match(result.error!, /token budget of 20 reached: 0 used, and the next request's prompt/);
  assert.equal(t.fake.requests.length, 0);
});

Deno.test("mid-run: the request that would not fit is never sent, and the sent one's reply cap is what was left", async () => {
  await using t = await setup();
  // Messages wire: its requests always carry max_tokens (32,000 unless lowered).
  const env = { ...t.env, AGENT_PROVIDER: "messages" };
  t.fake.enqueue(reply().tool("view", { path: "." }).usage(15_000, 100));
  t.fake.enqueue(reply().text("one turn too many").usage(15_200, 10));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--token-budget", "30000", "--output-format", "json", "--", "look"],
    env,
  );
  assert.equal(r.code, 1, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.done_reason, "token_budget");
  // The second prompt holds the first (15,100 as the server counted it): 15,100 + 15,100 > 30,000.
  assert.equal(t.fake.requests.length, 1);
  assert.equal(total(result), 15_100);
  assert.ok(total(result) <= 30_000);
  const cap = (t.fake.requests[0]!.body as { max_tokens: number }).max_tokens;
  assert.ok(cap > 0 && cap < 30_000, `max_tokens ${cap} is not lowered to the budget left`);
  t.fake.assertNoViolations();
});

Deno.test("-p without a prompt under --output-format json prints the JSON object and writes the report", async () => {
  await using t = await setup();
  const report = `${t.home}/out/r.md`;
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--output", report],
    t.env,
  );
  assert.equal(r.code, 1, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.outcome, "error");
  assert.equal(result.exit_code, 1);
  assert.equal(result.done_reason, "error");
  assert.equal(result.session_id, null);
  assert.match(result.error!, /no prompt/);
  assert.equal(result.report_path, report);
  assert.match(await Deno.readTextFile(report), /- \*\*Error:\*\* no prompt/);
  assert.equal(t.fake.allRequests.length, 0);
});

Deno.test("an unwritable --output under --output-format json still prints the JSON object", async () => {
  await using t = await setup();
  const r = await runAgent(
    [
      "-p",
      "--workdir",
      t.work,
      "--output-format",
      "json",
      "--output",
      "/proc/nope/r.md",
      "--",
      "x",
    ],
    t.env,
  );
  assert.equal(r.code, 1, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.session_id, null);
  assert.match(result.error!, /cannot write the report to \/proc\/nope\/r\.md/);
  assert.equal(result.report_path, undefined);
});

Deno.test("an --effort level the backend does not offer is refused before any network, naming the levels", async () => {
  await using t = await setup();
  t.fake.enqueue(reply().text("never asked for"));
  const base = ["-p", "--workdir", t.work, "--effort", "ultra"];
  const text = await runAgent([...base, "--", "x"], t.env);
  assert.equal(text.code, 1);
  assert.equal(
    text.stderr.trim(),
    'agent: --effort "ultra" is not offered by the Chat Completions wire to a self-hosted server; use one of: auto, on, off',
  );
  const json = await runAgent([...base, "--output-format", "json", "--", "x"], {
    ...t.env,
    AGENT_PROVIDER: "messages",
  });
  assert.equal(json.code, 1);
  const result = JSON.parse(json.stdout) as HeadlessResult;
  assert.equal(result.outcome, "error");
  assert.equal(result.session_id, null);
  assert.match(result.error!, /--effort "ultra" .* use one of: low, medium, high, xhigh, max/);
  // Not even the /v1/models probe went out, and no session was started.
  assert.equal(t.fake.allRequests.length, 0);
  await assert.rejects(Deno.stat(`${t.home}/.agent/sessions`));
});

Deno.test("cost_usd is rounded to 6 decimal places in the JSON and the report", async () => {
  await using t = await setup({ models: [{ id: "gpt-5-mini", max_model_len: 32768 }] });
  t.fake.enqueue(reply().text("priced").usage(7, 3));
  const raw = costOf("chat_completions", "gpt-5-mini", { input_tokens: 7, output_tokens: 3 })!;
  assert.ok(!Number.isInteger(raw * 10 ** COST_DECIMALS), `${raw} needs no rounding`);
  const report = `${t.home}/r.md`;
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--output", report, "--", "q"],
    { ...t.env, AGENT_PRICING: "1" },
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.model, "gpt-5-mini");
  assert.equal(result.cost_usd, 0.000008);
  assert.match(await Deno.readTextFile(report), /- \*\*Cost:\*\* \$0\.000008\n/);
});

Deno.test("a server echoing `default` as the model name never replaces the probed name", async () => {
  await using t = await setup({ responseModel: "default" });
  t.fake.enqueue(reply().text("hi"));
  const report = `${t.home}/r.md`;
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--output", report, "--", "q"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as HeadlessResult).model, "served-model");
  assert.match(await Deno.readTextFile(report), /- \*\*Model:\*\* served-model\n/);
});
