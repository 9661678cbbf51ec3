// `agent` without -p: an interactive session in the workspace. Start-up is on the clock
// (launch to input prompt under 100 ms): the terminal layer (node:process, the line editor)
// loads while the agent context is prepared, and the pickers' library loads only when a
// picker opens.

import type { ParsedArgs } from "./args.ts";
import { processEnv, systemClock } from "../core/ports.ts";
import { modelServerFetch } from "../core/wires/plain_http.ts";
import { prepareAgent, sessionsDirOf } from "./setup.ts";
import { resumeWorkdir } from "./resume_workdir.ts";
import { loadSession } from "../core/agent/journal.ts";
import { colorsWanted, makeStyle } from "./terminal/style.ts";
import { openNodeTerminal } from "./terminal/node_terminal.ts";
import { Session } from "./interactive_session.ts";

export class InteractiveError extends Error {
  override name = "InteractiveError";
}

/**
 * One yes/no question before the session opens (the terminal is still in line mode): the
 * answer is yes only for "y" or "yes"; anything else, or end of input, is no.
 */
async function askYesOnTerminal(question: string): Promise<boolean> {
  Deno.stdout.writeSync(new TextEncoder().encode(`${question} [y/N] `));
  const buf = new Uint8Array(256);
  const n = await Deno.stdin.read(buf);
  const answer = n === null ? "" : new TextDecoder().decode(buf.subarray(0, n)).trim();
  return /^y(es)?$/i.test(answer);
}

export async function runInteractive(args: ParsedArgs): Promise<number> {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
    throw new InteractiveError(
      'an interactive session needs a terminal on stdin and stdout; for scripts use agent -p -- "PROMPT"',
    );
  }
  const colors = colorsWanted(processEnv, true);
  const terminalLoading = openNodeTerminal(colors);
  terminalLoading.catch(() => {}); // awaited below; a set-up error may come first
  // A resumed session runs in its saved workdir (cli/resume_workdir.ts), not the cwd.
  const loaded = args.resume
    ? await loadSession(sessionsDirOf(processEnv), args.resume)
    : undefined;
  const workdir = loaded
    ? await resumeWorkdir(loaded.meta.workdir, args.workdir, Deno.cwd())
    : args.workdir;
  const modelFetch = modelServerFetch(processEnv);
  // The session, once built: the form picker needs it, and the context is built before it.
  const late: { session?: Session } = {};
  const ctx = await prepareAgent({
    flags: args.settingsFlags,
    mode: args.mode,
    env: processEnv,
    fetch: globalThis.fetch,
    modelFetch,
    clock: systemClock,
    cwd: Deno.cwd(),
    allowMissingKey: true,
    ...(args.memoryScope ? { memoryScope: args.memoryScope } : {}),
    // MCP servers connect behind the prompt; the status line shows those still connecting.
    awaitMcp: false,
    // Behind the prompt a line would break it: the status line shows the server connecting, and
    // `agent mcp add` or `agent mcp update` install packages where their output can be seen.
    mcpNotice: () => {},
    // A server's form, asked in the terminal (the session exists by the time a tool runs).
    mcpElicit: async (request) => {
      if (!late.session) return { action: "cancel" };
      late.session.pauseReply();
      const { askForm } = await import("./interactive_elicit.ts");
      return await askForm(late.session, request);
    },
    ...(args.effort !== undefined ? { effort: args.effort } : {}),
    ...(workdir ? { workdir } : {}),
    confirmProjectTrust: askYesOnTerminal,
  });
  const resumed = loaded && args.resume ? { ...loaded, id: args.resume } : undefined;
  const terminal = await terminalLoading;
  const session = new Session({
    terminal,
    style: makeStyle(colors),
    env: processEnv,
    modelFetch,
    clock: systemClock,
    args,
    ctx,
    ...(resumed ? { resumed } : {}),
  });
  late.session = session;
  // Outside raw mode (between prompts) ctrl+c arrives as SIGINT: interrupt, never die.
  const onSigint = () => session.interrupt();
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    return await session.run();
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    terminal.close();
    // The process exits next: servers are signalled, not waited for; then the sandbox closes.
    ctx.mcp?.abandon();
    await ctx.sandbox.close();
  }
}
