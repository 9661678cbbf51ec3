// The shell tool: the model's command line, run with `sh -c` inside the run's sandbox
// (core/sandbox) in the workdir, with a timeout that kills everything it started.

import type { Tool } from "./types.ts";
import { ToolInputError } from "./text_edit.ts";
import { OutputCapture } from "./output_capture.ts";
import description from "./shell.md" with { type: "text" };
import { type Sandbox, SandboxUnavailableError, type WrappedCommand } from "../sandbox/sandbox.ts";

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 1800;
const MAX_OUTPUT_CHARS = 30_000;

/** The shell tool of one run: every command goes through `sandbox`. */
export function makeShellTool(sandbox: Sandbox): Tool {
  return {
    name: "shell",
    description,
    input_schema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The command line, run with sh -c" },
        timeout_s: { type: "integer", minimum: 1, maximum: MAX_TIMEOUT_S },
      },
      required: ["command"],
      additionalProperties: false,
    },
    kind: "shell",
    summarize: (input) => `shell: ${String(input.command)}`,
    preview: (input, ctx) =>
      Promise.resolve(
        `$ ${String(input.command)}\n(in ${ctx.workdir}; sandbox: ${sandbox.describe()})`,
      ),
    async execute(input, ctx) {
      if (typeof input.command !== "string" || input.command.trim() === "") {
        throw new ToolInputError("command must be a non-empty string");
      }
      const timeoutS = timeoutSeconds(input.timeout_s);
      let wrapped: WrappedCommand;
      try {
        wrapped = await sandbox.wrap({ argv: ["sh", "-c", input.command], cwd: ctx.workdir });
      } catch (err) {
        // Refused, not run: the one-line reason says how to install the sandbox or opt out.
        if (err instanceof SandboxUnavailableError) {
          return { type: "result", content: err.message, is_error: true, refused: err.message };
        }
        throw err;
      }
      const result = await runShell(wrapped, timeoutS * 1000, ctx.signal);
      const status = result.timedOut
        ? `killed after ${timeoutS}s timeout`
        : result.aborted
        ? "interrupted"
        : result.signal
        ? `killed by signal ${result.signal}`
        : `exit code ${result.code}`;
      return {
        type: "result",
        content: `${status}\n${result.output}`.trimEnd(),
        // sh may exit 0 before a background child that held the output open was killed.
        is_error: result.code !== 0 || result.timedOut || result.aborted,
      };
    },
  };
}

/** `timeout_s` in seconds: absent or null means the default; above the maximum is clamped. */
function timeoutSeconds(raw: unknown): number {
  if (raw === undefined || raw === null) return DEFAULT_TIMEOUT_S;
  const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) {
    throw new ToolInputError(
      `timeout_s must be a positive number of seconds (at most ${MAX_TIMEOUT_S}); got ${
        JSON.stringify(raw)
      }`,
    );
  }
  return Math.min(n, MAX_TIMEOUT_S);
}

interface ShellResult {
  code: number;
  /** The signal that ended sh itself, if one did. */
  signal: string | null;
  output: string;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * Runs in its own process group so a timeout or interrupt kills everything it started (in the
 * sandbox, killing bwrap ends its pid namespace, so even a setsid'd child goes). bwrap's
 * --die-with-parent also takes the command down when the agent itself is killed.
 * `output` is stdout and stderr interleaved, already cut to MAX_OUTPUT_CHARS.
 */
export async function runShell(
  wrapped: WrappedCommand,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ShellResult> {
  const cwd = wrapped.cwd;
  // Loaded on first use: node:child_process is the way to get a new process group, and its
  // Node layer stays off the start-up path (7 ms per run, measured; see cli/main.ts).
  const { spawn } = await import("node:child_process");
  if (signal.aborted) {
    return { code: 130, signal: null, output: "", timedOut: false, aborted: true };
  }
  return await new Promise((resolve) => {
    const child = spawn(wrapped.command, wrapped.args, {
      cwd,
      env: wrapped.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = new OutputCapture(MAX_OUTPUT_CHARS);
    child.stdout?.on("data", (b: Uint8Array) => output.push("stdout", b));
    child.stderr?.on("data", (b: Uint8Array) => output.push("stderr", b));
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      try {
        if (child.pid) Deno.kill(-child.pid, "SIGKILL");
      } catch { /* already gone */ }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (err) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      const message = `could not start sh in ${cwd}: ${err.message}`;
      resolve({ code: 127, signal: null, output: message, timedOut, aborted });
    });
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve({
        code: code ?? (sig ? 137 : 1),
        signal: code === null ? sig : null,
        output: output.text(),
        timedOut,
        aborted,
      });
    });
  });
}
