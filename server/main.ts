// Entry point of `agent-outpost`: the dashboard service (see server/commands/outpost_cli.ts).
// Kept tiny; each command loads lazily.

import { processEnv, systemClock } from "../core/ports.ts";
import { runOutpost } from "./commands/outpost_cli.ts";

/** Resolves with the first of SIGINT / SIGTERM; a second one exits at once. */
function shutdownSignal(): Promise<string> {
  let received = false;
  return new Promise((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(sig, () => {
        if (received) {
          console.error(`${sig} again: exiting without waiting`);
          Deno.exit(130);
        }
        received = true;
        resolve(sig);
      });
    }
  });
}

const code = await runOutpost(Deno.args, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: processEnv,
  clock: systemClock,
  spawner: async () => (await import("../core/scheduler/process_spawner.ts")).processSpawner,
  fetch: globalThis.fetch,
  shutdownSignal,
  execPath: Deno.execPath(),
});
Deno.exit(code);
