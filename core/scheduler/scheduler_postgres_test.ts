// The scheduler suite on PostgreSQL: the same test files, run in a child `deno test` with
// AGENT_TEST_STORE=postgres, so every scheduler kit opens its store on a fresh database of
// the child's own throwaway cluster (tests/pg_cluster.ts). One suite, two engines.

import assert from "node:assert/strict";
import { peerTest, probes } from "../../tests/peers.ts";

/** Every test file built on tests/fakes/scheduler_kit.ts, plus the engine check. */
const SUITE = [
  "core/scheduler/kit_engine_test.ts",
  "core/scheduler/scheduler_test.ts",
  "core/scheduler/fire_wake_test.ts",
  "core/scheduler/fire_identity_test.ts",
  "core/scheduler/recovery_test.ts",
  "core/scheduler/runner_test.ts",
  "core/scheduler/outcomes_test.ts",
  "core/scheduler/cancel_test.ts",
  "core/scheduler/admission_test.ts",
  "core/inbox/service_test.ts",
];

peerTest("the scheduler suite passes with its store on PostgreSQL", probes.postgres, async () => {
  const root = new URL("../../", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", ...SUITE.map((f) => `${root}${f}`)],
    cwd: root,
    env: { AGENT_TEST_STORE: "postgres", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const summary = text.match(/(ok|FAILED) \| (\d+) passed.*\| (\d+) failed/);
  assert.ok(out.success && summary, `the suite failed on PostgreSQL:\n${text.slice(-6000)}`);
  assert.equal(summary[3], "0");
  assert.ok(Number(summary[2]) > 50, `only ${summary[2]} tests ran`);
});
