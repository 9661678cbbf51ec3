// Dispatch for `agent` once the fast paths in main.ts are out of the way. Every failure
// becomes one line on stderr and exit code 1, never a stack trace.

import { parseAgentArgs, UsageError } from "./args.ts";
import { helpText } from "./help.ts";
import { VERSION } from "./version.ts";
import { processEnv, systemClock } from "../core/ports.ts";
import { errorText } from "../core/logger.ts";
import { preloadMcpIfConfigured } from "../core/mcp/preload.ts";
import { timingMark } from "../core/timing_marks.ts";

export async function main(argv: string[]): Promise<number> {
  const out = (t: string) => void Deno.stdout.writeSync(new TextEncoder().encode(t));
  const err = (t: string) => void Deno.stderr.writeSync(new TextEncoder().encode(t));
  try {
    if (argv[0] === "mcp") {
      // Computed specifier: the subcommand (and node:util's parser) load only for it.
      const mcp: typeof import("./mcp_command.ts") = await import(
        new URL("./mcp_command.ts", import.meta.url).href
      );
      return await mcp.runMcpCommand(argv.slice(1), { out, err });
    }
    const args = parseAgentArgs(argv);
    if (args.help) return out(helpText() + "\n"), 0;
    if (args.version) return out(`agent ${VERSION}\n`), 0;
    if (args.command === "config") {
      // Computed specifiers here and for sessions: a string-literal import would load these
      // commands' modules at the start of every run, `agent -p` too (see main.ts).
      const { runConfig }: typeof import("./config_main.ts") = await import(
        new URL("./config_main.ts", import.meta.url).href
      );
      return await runConfig(args, out);
    }
    if (args.command === "adoption") {
      // Computed specifier: ajv and the schema load only for this command (see main.ts).
      const adoption: typeof import("./adoption.ts") = await import(
        new URL("./adoption.ts", import.meta.url).href
      );
      return await adoption.runAdoption(args.commandArgs ?? [], { cwd: Deno.cwd(), out, err });
    }
    if (args.command === "sessions") {
      const { listSessions }: typeof import("./sessions.ts") = await import(
        new URL("./sessions.ts", import.meta.url).href
      );
      return await listSessions(out);
    }
    // Runs that start MCP servers: the SDK loads alongside the rest (core/mcp/preload.ts).
    preloadMcpIfConfigured(processEnv, args.workdir ?? Deno.cwd());
    if (args.headless) {
      const controller = new AbortController();
      const onSigint = () => controller.abort(new Error("interrupted"));
      Deno.addSignalListener("SIGINT", onSigint);
      try {
        timingMark("args");
        const { runHeadless } = await import("./headless.ts");
        timingMark("modules");
        return await runHeadless(args, {
          env: processEnv,
          fetch: globalThis.fetch,
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
    // Computed specifier: keeps the interactive terminal's modules (and @inquirer) out of
    // what a headless run loads at start (see main.ts).
    const interactive: typeof import("./interactive.ts") = await import(
      new URL("./interactive.ts", import.meta.url).href
    );
    return await interactive.runInteractive(args);
  } catch (e) {
    const hint = e instanceof UsageError ? " (see agent --help)" : "";
    // The full text: a TOML error's excerpt and caret need their own lines.
    err(`agent: ${errorText(e).trim()}${hint}\n`);
    return 1;
  }
}
