// A job's workdir must exist on the outpost host when the job is created or changed through
// a door (dashboard, machine door): otherwise every run fails at spawn, long after the
// person who typed the path has gone. The shape (absolute, not too long) is checked by
// validateJobInput; this adds the one check that needs the disk. The scheduler core does
// not call it, so simulations and tests can use paths that exist nowhere.

import { JobValidationError } from "./job_input.ts";

export async function checkWorkdirExists(value: unknown): Promise<void> {
  if (typeof value !== "string" || !value.startsWith("/")) return; // shape errors come later
  const shown = JSON.stringify(value);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(value);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new JobValidationError(
        "workdir",
        `${shown} does not exist on the outpost host; create it (or mount it) first`,
      );
    }
    if (err instanceof Deno.errors.PermissionDenied) {
      throw new JobValidationError("workdir", `${shown} cannot be read by the outpost`);
    }
    throw err;
  }
  if (!info.isDirectory) throw new JobValidationError("workdir", `${shown} is not a directory`);
}
