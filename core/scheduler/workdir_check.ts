// A job's workdir is checked when the job is created or changed through a door (dashboard,
// machine door, recipes, chat `run`): it must exist on the outpost host (otherwise every run
// fails at spawn, long after the person who typed the path has gone) and pass the one workdir
// rule of core/workdir_policy.ts (not the agent home, the memory root, $HOME, / or a system
// folder). The shape (absolute, not too long) is checked by validateJobInput; this adds what
// needs the disk. The scheduler core does not call it, so simulations and tests can use paths
// that exist nowhere; the child agent checks the same rule again when it starts.

import { JobValidationError } from "./job_input.ts";
import { acceptWorkdir, type ProtectedPlaces, WorkdirRefusedError } from "../workdir_policy.ts";

/**
 * The canonical workdir for a job's `workdir` field, or a JobValidationError (a 400 at the
 * doors). A value of the wrong shape is returned as is: validateJobInput names that problem.
 */
export async function checkJobWorkdir(value: unknown, places: ProtectedPlaces): Promise<unknown> {
  if (typeof value !== "string" || !value.startsWith("/")) return value; // shape errors come later
  try {
    return await acceptWorkdir(value, places);
  } catch (err) {
    if (err instanceof WorkdirRefusedError) {
      throw new JobValidationError("workdir", `${JSON.stringify(err.workdir)} ${err.reason}`);
    }
    throw err;
  }
}
