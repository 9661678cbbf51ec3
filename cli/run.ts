// Dispatch for `agent` once the fast paths in main.ts are out of the way. Every failure
// becomes one line on stderr and exit code 1, never a stack trace.

import { parseAgentArgs, UsageError } from "./args.ts";
import { helpText } from "./help.ts";
import { VERSION } from "./version.ts";
import { processEnv, systemClock } from "../core/ports.ts";
import { errorText } from "../core/logger.ts";
import { timingMark } from "../core/timing_marks.ts";
import { modelServerFetch } from "../core/wires/plain_http.ts";

export async function main(argv: string[]): Promise<number> {
  const out = stdoutWriter();
  const err = (t: string) => void Deno.stderr.writeSync(new TextEncoder().encode(t));
  try {
    if (argv[0] === "mcp") {
      // Dynamic imports here and below: a command's modules load only for it (see main.ts).
      const mcp = await import("./mcp_command.ts");
      return await mcp.runMcpCommand(argv.slice(1), { out, err });
    }
    const args = parseAgentArgs(argv);
    if (args.help) return out(helpText() + "\n"), 0;
    if (args.version) return out(`agent ${VERSION}\n`), 0;
    if (args.command === "config") {
      const { runConfig } = await import("./config_main.ts");
      return await runConfig(args, out);
    }
    if (args.command === "adoption") {
      const adoption = await import("./adoption.ts");
      return await adoption.runAdoption(args.commandArgs ?? [], { cwd: Deno.cwd(), out, err });
    }
    if (args.command === "sessions") {
      const { listSessions } = await import("./sessions.ts");
      return await listSessions(out);
    }
    if (args.headless) {
      const controller = new AbortController();
      const onSigint = () => controller.abort(new Error("interrupted"));
      Deno.addSignalListener("SIGINT", onSigint);
      try {
        timingMark("args");
        if (!Deno.stdin.isTerminal()) {
          const { promptWithStdin } = await import("./stdin_prompt.ts");
          const prompt = await promptWithStdin(args.prompt, err);
          if (prompt !== undefined) args.prompt = prompt;
        }
        const { runHeadless } = await import("./headless.ts");
        timingMark("modules");
        return await runHeadless(args, {
          env: processEnv,
          fetch: globalThis.fetch,
          modelFetch: modelServerFetch(processEnv),
          clock: systemClock,
          cwd: Deno.cwd(),
          stdout: out,
          stderr: err,
          signal: controller.signal,
        });
      } finally {
        Deno.removeSignalListener("SIGINT", onSigint);
      }
    }
    // The interactive terminal's modules (and @inquirer) stay out of a headless run.
    const interactive = await import("./interactive.ts");
    return await interactive.runInteractive(args);
  } catch (e) {
    const hint = e instanceof UsageError ? " (see agent --help)" : "";
    // The full text: a TOML error's excerpt and caret need their own lines.
    err(`agent: ${errorText(e).trim()}${hint}\n`);
    return 1;
  }
}

/**
 * Writes to stdout; once the reader has gone (`agent sessions | head -1`), the rest is dropped
 * as a pipe's writer killed by SIGPIPE would drop it, and the command ends as it would have.
 */
function stdoutWriter(): (text: string) => void {
  let readerGone = false;
  return (text) => {
    if (readerGone) return;
    const bytes = new TextEncoder().encode(text);
    try {
      let written = 0;
      while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
    } catch (err) {
      if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
      readerGone = true;
    }
  };
}
