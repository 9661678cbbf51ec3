// Where a resumed session runs: the folder it was saved with (the one `agent sessions`
// shows), never the directory the resume was typed in, so an approved edit lands where the
// model planned it. An explicit --workdir on resume must name that same folder (after
// symlinks); any other folder is refused rather than silently obeyed or silently ignored.

import { resolve } from "../core/path.ts";
import { SetupError } from "./setup.ts";

/**
 * The workdir for resuming a session saved in `saved`. `explicit` is the --workdir flag, if
 * given (relative to `cwd`). Throws SetupError when it names another folder, or when either
 * folder is gone.
 */
export async function resumeWorkdir(
  saved: string,
  explicit: string | undefined,
  cwd: string,
): Promise<string> {
  const session = await realFolder(saved, "the session's workdir");
  if (explicit !== undefined) {
    const given = await realFolder(resolve(cwd, explicit), "--workdir");
    if (given !== session) {
      throw new SetupError(
        `--workdir ${given} is not this session's workdir ${session}; a resumed session runs ` +
          `where it was started (agent sessions shows it): leave --workdir out, or start a new ` +
          `session in ${given}`,
      );
    }
  }
  return session;
}

async function realFolder(path: string, what: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new SetupError(`${what} ${path} does not exist (moved or deleted?)`);
    }
    throw err;
  }
}
