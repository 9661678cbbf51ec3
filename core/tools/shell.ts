import type { Tool } from "./types.ts";
import { ToolInputError } from "./text_edit.ts";
import { OutputCapture } from "./output_capture.ts";
import description from "./shell.md" with { type: "text" };
import { HOSTED_CHAT_KEY_ENV, HOSTED_MESSAGES_KEY_ENV, SHARED_KEY_ENV } from "../settings/keys.ts";

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
  preview: (input, ctx) => Promise.resolve(`$ ${String(input.command)}\n(in ${ctx.workdir})`),
  async execute(input, ctx) {
    if (typeof input.command !== "string" || input.command.trim() === "") {
      throw new ToolInputError("command must be a non-empty string");
    }
    const timeoutS = timeoutSeconds(input.timeout_s);
    const result = await runShell(input.command, ctx.workdir, timeoutS * 1000, ctx.signal);
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
 * Runs in its own process group so a timeout or interrupt kills everything it started.
 * `output` is stdout and stderr interleaved, already cut to MAX_OUTPUT_CHARS.
 */
export async function runShell(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ShellResult> {
  // Loaded on first use: node:child_process is the way to get a new process group. The
  // specifier is computed because Deno loads every string-literal import() when the process
  // starts; this keeps its Node layer off the start-up path (7 ms per run, measured).
  const childProcess = "node:child_process";
  const { spawn }: typeof import("node:child_process") = await import(childProcess);
  if (signal.aborted) {
    return { code: 130, signal: null, output: "", timedOut: false, aborted: true };
  }
  return await new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], {
      cwd,
      env: shellEnv(Deno.env.toObject()),
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

/** The agent's own model keys: what the model runs must not be able to read them back. */
const MODEL_KEY_VARS = [HOSTED_MESSAGES_KEY_ENV, HOSTED_CHAT_KEY_ENV, SHARED_KEY_ENV];

/** The agent's environment minus its model keys. */
export function shellEnv(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  for (const name of MODEL_KEY_VARS) delete out[name];
  return out;
}
