// `agent-outpost ranger init`: creates the ranger workspace (<workspaces root>/ranger, the
// folder chat `ask` runs in) with the shipped brief as its AGENTS.md. Explicit on purpose:
// spec 4.6 has a missing ranger workspace refuse `ask` exactly as `run` refuses a missing
// workspace, so the outpost never creates it behind the operator's back. An AGENTS.md the
// operator edited is kept unless --force is given.

import { parseFlags } from "../../cli/args.ts";
import { errorText } from "../../core/logger.ts";
import { join } from "../../core/path.ts";
import type { Env } from "../../core/ports.ts";
import { BRIEF_FILE } from "../../core/agent/workspace_brief.ts";
import { RANGER, workspacesRootFrom } from "../../core/messenger/workspaces.ts";
import { writeFileAtomic } from "../../core/atomic_write.ts";
import brief from "../messenger/ranger_brief.md" with { type: "text" };

export const RANGER_USAGE = `usage: agent-outpost ranger init [--force]

Creates the ranger workspace, <AGENT_OUTPOST_WORKSPACES>/ranger (default
$AGENT_HOME/workspaces/ranger), with the shipped brief as its ${BRIEF_FILE}. Chat \`ask\` runs
there in strict mode; before each one the outpost writes STATUS.md, a read-only snapshot of
jobs, runs, schedules, alerts and inbox items, which the brief tells the agent to answer from.
An existing ${BRIEF_FILE} that differs from the shipped one is kept; --force replaces it.`;

/** The shipped ranger brief (server/messenger/ranger_brief.md). */
export const RANGER_BRIEF: string = brief;

export interface RangerIo {
  out(line: string): void;
  err(line: string): void;
  env: Env;
  /** AGENT_HOME (the default workspaces root is below it). */
  home: string;
}

export async function runRanger(args: string[], io: RangerIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === undefined) {
    for (const line of RANGER_USAGE.split("\n")) (sub === undefined ? io.err : io.out)(line);
    return sub === undefined ? 1 : 0;
  }
  if (sub !== "init") {
    io.err(`error: unknown ranger command ${JSON.stringify(sub)}; use: ranger init [--force]`);
    return 1;
  }
  let force: boolean;
  try {
    const { values, positionals } = parseFlags(rest, { force: { type: "boolean" } });
    if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}`);
    force = values.force === true;
  } catch (err) {
    io.err(`error: ${errorText(err)}; ${RANGER_USAGE.split("\n")[0]}`);
    return 1;
  }
  const dir = join(workspacesRootFrom(io.env, io.home), RANGER);
  const file = join(dir, BRIEF_FILE);
  try {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const current = await readIfThere(file);
    if (current === RANGER_BRIEF) {
      io.out(`${file} is already the shipped ranger brief; nothing to do`);
      return 0;
    }
    if (current !== null && !force) {
      io.out(`${file} exists and differs from the shipped brief; kept (--force replaces it)`);
      return 0;
    }
    await writeFileAtomic(file, RANGER_BRIEF, { mode: 0o644 });
    io.out(
      `${current === null ? "wrote" : "replaced"} ${file}: chat \`ask\` runs in ${dir} ` +
        "in strict mode, answering from the STATUS.md snapshot written before each ask",
    );
    return 0;
  } catch (err) {
    io.err(`error: cannot set up the ranger workspace ${dir}: ${errorText(err)}`);
    return 1;
  }
}

async function readIfThere(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err; // a refused read is not an absent brief
  }
}
