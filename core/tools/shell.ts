import type { Tool } from "./types.ts";
import { capText, ToolInputError } from "./text_edit.ts";
import description from "./shell.md" with { type: "text" };

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 1800;
const MAX_OUTPUT_CHARS = 30_000;

export const shellTool: Tool = {
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
  async execute(input, ctx) {
    if (typeof input.command !== "string" || input.command.trim() === "") {
      throw new ToolInputError("command must be a non-empty string");
    }
    const timeoutS = Math.min(
      Number(input.timeout_s ?? DEFAULT_TIMEOUT_S) || DEFAULT_TIMEOUT_S,
      MAX_TIMEOUT_S,
    );
    const result = await runShell(input.command, ctx.workdir, timeoutS * 1000, ctx.signal);
    const status = result.timedOut
      ? `killed after ${timeoutS}s timeout`
      : result.aborted
      ? "interrupted"
      : `exit code ${result.code}`;
    const body = capText(result.output, MAX_OUTPUT_CHARS);
    return { type: "result", content: `${status}\n${body}`.trimEnd(), is_error: result.code !== 0 };
  },
};

interface ShellResult {
  code: number;
  output: string;
  timedOut: boolean;
  aborted: boolean;
}

/** Runs in its own process group so a timeout or interrupt kills everything it started. */
export async function runShell(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ShellResult> {
  // Loaded on first use: node:child_process is the way to get a new process group, and
  // keeping Deno's Node layer off the start-up path saves several milliseconds per run.
  const { spawn } = await import("node:child_process");
  return await new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: string[] = [];
    let size = 0;
    const collect = (b: Uint8Array) => {
      if (size > MAX_OUTPUT_CHARS * 4) return;
      const s = new TextDecoder().decode(b);
      size += s.length;
      chunks.push(s);
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
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
      resolve({ code: 127, output: `could not start sh: ${err.message}`, timedOut, aborted });
    });
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve({ code: code ?? (sig ? 137 : 1), output: chunks.join(""), timedOut, aborted });
    });
  });
}
