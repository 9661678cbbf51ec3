// Prompts drawn with @inquirer (a well-kept terminal prompt library). The library loads on
// the first prompt, never at start-up. esc cancels every prompt (inquirer itself only
// knows ctrl+c), by aborting the prompt when the keypress decoder reports an escape.

import type { PickOptions, Prompts } from "./prompts.ts";

type NodeProcess = typeof import("node:process");

const CANCELLED = new Set(["ExitPromptError", "AbortPromptError", "CancelPromptError"]);

function isCancel(err: unknown): boolean {
  return err instanceof Error && CANCELLED.has(err.name);
}

export function inquirerPrompts(proc: NodeProcess, colors: boolean): Prompts {
  /** Runs a prompt with esc wired to cancel it; resolves null when cancelled. */
  async function run<T>(start: (signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const controller = new AbortController();
    // The keypress decoder reports a lone esc once no sequence follows it; reading the
    // escape off the keypress stream (not raw bytes) keeps that decoder's state clean.
    const onKeypress = (_s: unknown, key: { name?: string } | undefined) => {
      if (key?.name === "escape") controller.abort();
    };
    proc.stdin.on("keypress", onKeypress);
    try {
      return await start(controller.signal);
    } catch (err) {
      if (isCancel(err)) return null;
      throw err;
    } finally {
      proc.stdin.off("keypress", onKeypress);
    }
  }

  return {
    async pick<T>(options: PickOptions<T>): Promise<T | null> {
      const { listPrompt } = await import("./list_prompt.ts");
      const picked = await run((signal) =>
        listPrompt({ ...(options as PickOptions<unknown>), colors }, {
          signal,
          clearPromptOnDone: true,
        })
      );
      return picked === null ? null : (picked.value as T);
    },
    async confirm(message: string, defaultYes = false): Promise<boolean | null> {
      const { confirm } = await import("@inquirer/prompts");
      return await run((signal) => confirm({ message, default: defaultYes }, { signal }));
    },
    async secret(message: string): Promise<string | null> {
      const { password } = await import("@inquirer/prompts");
      return await run((signal) =>
        password({
          message,
          mask: "*",
          validate: (v) => v.trim() !== "" || "Paste the key, or press esc to cancel.",
        }, { signal })
      );
    },
    async text(message: string): Promise<string | null> {
      const { input } = await import("@inquirer/prompts");
      return await run((signal) => input({ message }, { signal }));
    },
  };
}
