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
  const ctx = await prepareAgent({
    flags: args.settingsFlags,
    mode: args.mode,
    env: processEnv,
    fetch: globalThis.fetch,
    modelFetch,
    clock: systemClock,
    cwd: Deno.cwd(),
    allowMissingKey: true,
    // Start-up progress of MCP servers, one line per change, before the prompt opens.
    onMcpChange: (status) => {
      const what = status.state === "ready"
        ? `ready, ${status.tools.length} tools`
        : status.error
        ? `${status.state.replace("_", " ")}: ${status.error}`
        : status.state.replace("_", " ");
      Deno.stderr.writeSync(new TextEncoder().encode(`mcp: ${status.name} ${what}\n`));
    },
    ...(args.effort !== undefined ? { effort: args.effort } : {}),
    ...(workdir ? { workdir } : {}),
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
  // Outside raw mode (between prompts) ctrl+c arrives as SIGINT: interrupt, never die.
  const onSigint = () => session.interrupt();
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    return await session.run();
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    terminal.close();
    await ctx.mcp?.close();
  }
}
