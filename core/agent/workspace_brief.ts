// The workspace brief: an `AGENTS.md` at the root of the working directory (the common
// convention) is read once at start and goes into the frozen system prompt, so its owner can
// scope what the agent does there (the outpost's ranger workspace relies on it). It is
// size-capped so a large file cannot crowd out the conversation, confined to the workspace (a
// symlink that leads outside is not followed), and read only when it is a regular file: a FIFO,
// device or directory named AGENTS.md is skipped with a warning (core/regular_file.ts).

import { errorText } from "../logger.ts";
import { readRegularFileSync } from "../regular_file.ts";

export const BRIEF_FILE = "AGENTS.md";
/** At most this many bytes of the file reach the prompt; the rest is cut with a note. */
export const BRIEF_MAX_BYTES = 16 * 1024;

export interface WorkspaceBrief {
  /** The text for the system prompt (heading, file text, truncation note); absent when none. */
  brief?: string;
  /** One line to show the operator when a file was there but not used. */
  warning?: string;
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/**
 * Reads `<workdir>/AGENTS.md` (`workdir` is a canonical path). No file: no brief. A read that
 * fails for another reason (a refused permission) throws, naming the file: the agent must not
 * silently run without the brief its owner wrote.
 */
export async function readWorkspaceBrief(workdir: string): Promise<WorkspaceBrief> {
  const path = `${workdir}/${BRIEF_FILE}`;
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    throw new Error(`cannot read the workspace brief ${path}: ${errorText(err)}`, { cause: err });
  }
  if (!isInside(workdir, real)) {
    return { warning: `${BRIEF_FILE} leads outside the workspace (${real}); it is not used` };
  }
  // Type and size are checked before opening: a FIFO would block the run here for ever.
  let read;
  try {
    read = readRegularFileSync(real, BRIEF_MAX_BYTES);
  } catch (err) {
    throw new Error(`cannot read the workspace brief ${path}: ${errorText(err)}`, { cause: err });
  }
  if (read.kind === "absent") return {};
  if (read.kind === "skipped") return { warning: `${BRIEF_FILE} ${read.why}; it is not used` };
  let text = new TextDecoder().decode(read.bytes);
  // A cut may split a character; drop the partial line rather than show a broken one.
  if (read.truncated) text = text.slice(0, Math.max(0, text.lastIndexOf("\n")));
  text = text.trim();
  if (text === "") return {};
  const note = read.truncated
    ? `\n\n(${BRIEF_FILE} is ${read.size} bytes; only its first ${BRIEF_MAX_BYTES} are shown.)`
    : "";
  return {
    brief: `Workspace brief (${BRIEF_FILE} in the workspace root; follow it):\n\n${text}${note}`,
  };
}
