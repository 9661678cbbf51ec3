// Runs one extra agent pass (reflection, /memory init) under a hard bound: the pass is
// aborted through its signal when the injected clock reaches the timeout or when the
// caller's signal fires (a second ctrl+c), and the caller gets control back at once even
// if the runner ignores the signal. The memory tool handed to the pass is gated too, so a
// runner that keeps going after the bound cannot change memory any more.

import type { Clock } from "../ports.ts";
import type { Tool, ToolOutcome } from "../tools/types.ts";

export interface BoundedOutcome {
  timed_out?: true;
  aborted?: true;
  error?: string;
}

export interface GatedTool {
  tool: Tool;
  /** Closes the gate: later calls are refused without touching memory. */
  close(): void;
  /** Calls that reached the underlying tool. */
  readonly calls: number;
}

/** Wraps a tool so it refuses calls after close() or after `maxCalls` calls. */
export function gateTool(inner: Tool, maxCalls: number, label: string): GatedTool {
  let open = true;
  let calls = 0;
  const refuse = (why: string): Promise<ToolOutcome> =>
    Promise.resolve({ type: "result", content: `Error: ${why}`, is_error: true });
  const tool: Tool = {
    ...inner,
    execute: (input, ctx) => {
      if (!open) return refuse(`the ${label} pass has ended; memory was not changed.`);
      if (calls >= maxCalls) {
        return refuse(`the ${label} pass used its ${maxCalls} memory calls; finish now.`);
      }
      calls++;
      return inner.execute(input, ctx);
    },
  };
  return {
    tool,
    close: () => {
      open = false;
    },
    get calls() {
      return calls;
    },
  };
}

export async function runBounded(
  work: (signal: AbortSignal) => Promise<void>,
  opts: { timeoutMs: number; clock: Clock; signal?: AbortSignal },
): Promise<BoundedOutcome> {
  const inner = new AbortController();
  const timer = new AbortController();
  let stop!: (why: "timeout" | "aborted") => void;
  const stopped = new Promise<"timeout" | "aborted">((resolve) => stop = resolve);
  opts.clock.sleep(opts.timeoutMs, timer.signal).then(() => stop("timeout"), () => {});
  const onAbort = () => stop("aborted");
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });

  const done = (async () => await work(inner.signal))().then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  try {
    const first = await Promise.race([done, stopped]);
    if (first === "timeout") {
      inner.abort(new DOMException(`timed out after ${opts.timeoutMs} ms`, "TimeoutError"));
      return { timed_out: true };
    }
    if (first === "aborted") {
      inner.abort(opts.signal?.reason ?? new DOMException("aborted", "AbortError"));
      return { aborted: true };
    }
    if (first.ok) return {};
    const e = first.error;
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  } finally {
    timer.abort();
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
