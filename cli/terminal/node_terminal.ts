// The real terminal: node:readline for the input line (editing keys, a history the arrows
// walk), the process's stdin in raw mode while a reply streams, and @inquirer pickers.
// Everything reads through the one `process.stdin` stream, one reader at a time.

import type { InputEvent, Terminal, WatchedKey } from "./terminal.ts";
import type { Prompts } from "../pickers/prompts.ts";
import { inquirerPrompts } from "../pickers/inquirer_prompts.ts";

type Readline = typeof import("node:readline");
type NodeProcess = typeof import("node:process");
type ReadlineWithHistory = import("node:readline").Interface & {
  history: string[];
  line: string;
};

const HISTORY_SIZE = 1000;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Loads node:readline and the process's stdin; call while other start-up work runs. */
export async function openNodeTerminal(colors: boolean): Promise<Terminal> {
  const [readline, proc] = await Promise.all([import("node:readline"), import("node:process")]);
  return new NodeTerminal(readline, proc.default as NodeProcess, colors);
}

class NodeTerminal implements Terminal {
  readonly prompts: Prompts;
  #readline: Readline;
  #process: NodeProcess;
  /** Newest first, as readline keeps it. */
  #history: string[] = [];

  constructor(readline: Readline, proc: NodeProcess, colors: boolean) {
    this.#readline = readline;
    this.#process = proc;
    this.prompts = inquirerPrompts(proc, colors);
  }

  write(text: string): void {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  }

  columns(): number {
    return consoleSize()?.columns ?? 80;
  }

  rows(): number {
    return consoleSize()?.rows ?? 24;
  }

  readInput(prompt: string, continuation: string, draft = ""): Promise<InputEvent> {
    const stdin = this.#process.stdin;
    return new Promise((resolve) => {
      const rl = this.#readline.createInterface({
        input: stdin,
        output: this.#process.stdout,
        terminal: true,
        prompt,
        history: [...this.#history],
        historySize: HISTORY_SIZE,
        removeHistoryDuplicates: true,
      }) as ReadlineWithHistory;
      const lines: string[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;

      const finish = (event: InputEvent) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#history = rl.history.slice(0, HISTORY_SIZE);
        stdin.off("keypress", onKeypress);
        rl.close();
        if (event.type !== "line") this.write("\n");
        resolve(event);
      };
      // Lines handled in the same tick came in one burst: a paste. A trailing backslash
      // asks for another line.
      const flush = () => {
        timer = undefined;
        const last = lines.at(-1);
        if (last !== undefined && last.endsWith("\\")) {
          lines[lines.length - 1] = last.slice(0, -1);
          rl.setPrompt(continuation);
          rl.prompt();
          return;
        }
        finish({ type: "line", text: lines.join("\n") });
      };
      const onKeypress = (_s: unknown, key: { ctrl?: boolean; name?: string } | undefined) => {
        if (key?.ctrl && key.name === "q") finish({ type: "quit", key: "ctrl+q" });
        if (key?.ctrl && key.name === "o") finish({ type: "expand", draft: rl.line });
      };

      rl.on("line", (line: string) => {
        lines.push(line);
        clearTimeout(timer);
        timer = setTimeout(flush, 0);
      });
      rl.on("SIGINT", () => {
        const typed = rl.line !== "" || lines.length > 0;
        finish(typed ? { type: "cancel" } : { type: "quit", key: "ctrl+c" });
      });
      rl.on("close", () => finish({ type: "quit", key: "ctrl+d" }));
      stdin.on("keypress", onKeypress);
      rl.prompt();
      if (draft !== "") rl.write(draft);
    });
  }

  watchKeys(onKey: (key: WatchedKey) => void, onText?: (text: string) => void): () => void {
    const stdin = this.#process.stdin;
    const onData = (chunk: Uint8Array | string) => {
      const s = typeof chunk === "string" ? chunk : decoder.decode(chunk);
      if (s.includes("\x03")) onKey("ctrl+c");
      else if (s.includes("\x11")) onKey("ctrl+q");
      else if (s === "\x1b") onKey("escape");
      else onText?.(s);
    };
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on("data", onData);
    stdin.resume();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stdin.off("data", onData);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
    };
  }

  close(): void {
    const stdin = this.#process.stdin;
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
    } catch { /* already closed */ }
  }
}

function consoleSize(): { columns: number; rows: number } | null {
  try {
    return Deno.consoleSize();
  } catch {
    return null;
  }
}
