// Where a resumed session runs: the folder it was saved with (the one `agent sessions`
// shows), never the directory the resume was typed in, so an approved edit lands where the
// model planned it. An explicit --workdir on resume must name that same folder (after
// symlinks); any other folder is refused rather than silently obeyed or silently ignored.
// The in-session /resume refuses a conversation saved in another folder for the same reason
// (resumeHereRefusal): the session's tools, memory workspace, status line and /diff all stay on
// the folder it was started in, so the conversation is resumed where it was saved instead.

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

/**
 * Why a session running in `current` cannot continue conversation `id`, saved in `saved`
 * (/resume), or undefined when both name the same folder (after symlinks). Throws SetupError
 * when the saved folder is gone.
 */
export async function resumeHereRefusal(
  id: string,
  saved: string,
  current: string,
): Promise<string | undefined> {
  const session = await realFolder(saved, `${id}'s workdir`);
  const here = await realFolder(current, "this session's workdir");
  if (session === here) return undefined;
  return `${id} was saved in ${session}, but this session works in ${here}; its tools would ` +
    `act on the wrong folder. Resume it where it was started: cd ${shellWord(session)} && ` +
    `agent --resume ${id}`;
}

/** `word` as one shell word: as is when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
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
