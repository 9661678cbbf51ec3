// An outpost-like process for the recovery test: the real store, governor, scheduler and
// process-group spawner on the system clock, running tests/fixtures/fake_agent.ts children.
// It reports what happens as JSON lines on stdout and runs until it is killed.
//   deno run -A tests/e2e/outpost_harness.ts <home>

import { Delivery } from "../../core/delivery/delivery.ts";
import { createLogAdapter } from "../../core/delivery/log_adapter.ts";
import { stderrLogger } from "../../core/logger.ts";
import { governorPath } from "../../core/governor/config.ts";
import { Governor } from "../../core/governor/governor.ts";
import { processEnv, systemClock } from "../../core/ports.ts";
import { processSpawner } from "../../core/scheduler/process_spawner.ts";
import { Scheduler } from "../../core/scheduler/scheduler.ts";
import { outpostDbPath, SqliteStore } from "../../core/store/sqlite_store.ts";

if (import.meta.main) {
  const home = Deno.args[0];
  if (!home) throw new Error("usage: outpost_harness.ts <home>");
  const FAKE_AGENT = new URL("../fixtures/fake_agent.ts", import.meta.url).pathname;
  const say = (event: Record<string, unknown>) => console.log(JSON.stringify(event));

  const clock = systemClock;
  const store = new SqliteStore({ path: outpostDbPath(home), clock });
  const governor = await Governor.open({ path: governorPath(home), env: processEnv, clock, store });
  const delivery = new Delivery({ clock, logger: stderrLogger });
  delivery.register(createLogAdapter({ path: `${home}/outpost/delivery.jsonl` }));
  const scheduler = new Scheduler({
    store,
    clock,
    env: processEnv,
    spawner: processSpawner,
    governor,
    delivery,
    logger: stderrLogger,
    agentCommand: { command: Deno.execPath(), args: ["run", "-A", "--quiet", FAKE_AGENT] },
    home,
  });
  scheduler.on((event) => say({ event: event.type, ...event }));
  const recovered = scheduler.start();
  say({ event: "recovered", ...recovered });
}
