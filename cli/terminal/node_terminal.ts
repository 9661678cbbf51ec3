// The real terminal: the process's stdin in raw mode, read by our own line editor at the
// prompt (keys.ts decodes, line_editor.ts edits, editor_view.ts draws) and watched for keys
// while a reply streams, and @inquirer pickers. Everything reads through the one
// `process.stdin` stream, one reader at a time. node:readline was dropped for the editor:
// it submitted a paste line by line, knew neither bracketed paste nor CSI u keys, and kept a
// multi-line message as several history entries.

import type { InputEvent, ReadOptions, Terminal, WatchedKey } from "./terminal.ts";
import type { Prompts } from "../pickers/prompts.ts";
import { inquirerPrompts } from "../pickers/inquirer_prompts.ts";
import { KeyDecoder } from "./keys.ts";
import { LineEditor } from "./line_editor.ts";
import { EditorView } from "./editor_view.ts";

type NodeProcess = typeof import("node:process");

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";

/** Loads the process's stdin; call while other start-up work runs. */
export async function openNodeTerminal(colors: boolean): Promise<Terminal> {
  const proc = await import("node:process");
  return new NodeTerminal(proc.default as NodeProcess, colors);
}

class NodeTerminal implements Terminal {
  readonly prompts: Prompts;
  #process: NodeProcess;

  constructor(proc: NodeProcess, colors: boolean) {
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

  readInput(prompt: string, continuation: string, opts: ReadOptions = {}): Promise<InputEvent> {
    const stdin = this.#process.stdin;
    const editor = new LineEditor({
      ...(opts.history ? { history: opts.history } : {}),
      ...(opts.draft ? { draft: opts.draft } : {}),
      ...(opts.complete ? { complete: opts.complete } : {}),
    });
    const view = new EditorView((s) => this.write(s), () => this.columns());
    const frame = () => ({
      prompt,
      continuation,
      text: editor.text,
      cursor: editor.cursor,
      footer: editor.footer,
    });
    const keys = new KeyDecoder();
    const utf8 = new TextDecoder();
    return new Promise((resolve) => {
      let settled = false;
      // Keys are applied one after another: a completion may wait for a file listing.
      let queue = Promise.resolve();
      const finish = (event: InputEvent) => {
        if (settled) return;
        settled = true;
        stdin.off("data", onData);
        Deno.removeSignalListener("SIGWINCH", onResize);
        view.finish(frame());
        this.write(BRACKETED_PASTE_OFF);
        if (stdin.isTTY) stdin.setRawMode(false);
        stdin.pause();
        resolve(event);
      };
      const onData = (chunk: Uint8Array | string) => {
        const text = typeof chunk === "string" ? chunk : utf8.decode(chunk, { stream: true });
        const events = keys.feed(text);
        queue = queue.then(async () => {
          for (const event of events) {
            if (settled) return;
            const done = await editor.handle(event);
            if (done) return finish(done);
          }
          if (!settled) view.draw(frame());
        }).catch((err) => {
          // An editing step failed (a completion's listing): say so under the box and go on.
          editor.footer = [`✗ ${err instanceof Error ? err.message : String(err)}`];
          if (!settled) view.draw(frame());
        });
      };
      const onResize = () => {
        if (!settled) view.draw(frame());
      };
      Deno.addSignalListener("SIGWINCH", onResize);
      if (stdin.isTTY) stdin.setRawMode(true);
      this.write(BRACKETED_PASTE_ON);
      view.draw(frame());
      stdin.on("data", onData);
      stdin.resume();
    });
  }

  watchKeys(onKey: (key: WatchedKey) => void, onText?: (text: string) => void): () => void {
    const stdin = this.#process.stdin;
    const onData = (chunk: Uint8Array | string) => {
      const s = typeof chunk === "string" ? chunk : decoder.decode(chunk);
      if (s.includes("\x03") || s === "\x1b[99;5u") onKey("ctrl+c");
      else if (s.includes("\x11") || s === "\x1b[113;5u") onKey("ctrl+q");
      else if (s === "\x1b" || s === "\x1b[27u") onKey("escape");
      else onText?.(s);
    };
    if (stdin.isTTY) stdin.setRawMode(true);
    // Pastes typed ahead arrive bracketed, so the type-ahead keeps their lines together.
    this.write(BRACKETED_PASTE_ON);
    stdin.on("data", onData);
    stdin.resume();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stdin.off("data", onData);
      this.write(BRACKETED_PASTE_OFF);
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
