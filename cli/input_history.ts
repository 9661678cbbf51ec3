// The messages typed in a project, kept across sessions for the up arrow and ctrl+r: one file
// per workdir under the agent home (`history/<hash>.jsonl`, 0600 in a 0700 folder), one JSON
// string per line so a multi-line message stays one entry. Bounded: past MAX_ENTRIES the file
// is rewritten (atomically) with the newest ones. A line that does not parse is skipped, never
// fatal: history is a convenience, and losing a corrupt line is better than losing the rest.

import { join } from "../core/path.ts";
import { writeFileAtomic } from "../core/atomic_write.ts";
import { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../core/private_files.ts";

export const MAX_ENTRIES = 500;
/** Longer messages are kept cut to this many characters (a whole pasted file is not). */
const MAX_ENTRY_CHARS = 20_000;

export class InputHistory {
  readonly path: string;
  #entries: string[] = [];
  #loaded = false;
  /** False when the file ends in a torn line: the next append starts a line of its own. */
  #endsWithNewline = true;

  constructor(agentHome: string, workdir: string) {
    this.path = join(agentHome, "history", `${hashHex(workdir)}.jsonl`);
  }

  /** Oldest first. Reads the file the first time; a missing file is an empty history. */
  // deno-lint-ignore require-await
  async entries(): Promise<string[]> {
    if (this.#loaded) return this.#entries;
    let text = "";
    try {
      // Synchronous on purpose: the file is small (bounded), and an async read queues behind
      // whatever holds Deno's blocking threads at start-up (a hosted endpoint's DNS lookup),
      // which held the first prompt back.
      text = Deno.readTextFileSync(this.path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    this.#entries = parseLines(text).slice(-MAX_ENTRIES);
    this.#endsWithNewline = text === "" || text.endsWith("\n");
    this.#loaded = true;
    return this.#entries;
  }

  /** Records a sent message (not a repeat of the last one) and saves it. */
  async add(message: string): Promise<void> {
    const entry = message.slice(0, MAX_ENTRY_CHARS);
    if (entry.trim() === "") return;
    const entries = await this.entries();
    if (entries.at(-1) === entry) return;
    entries.push(entry);
    const dir = join(this.path, "..");
    await makePrivateDir(dir);
    if (entries.length > MAX_ENTRIES) {
      this.#entries = entries.slice(-MAX_ENTRIES);
      await writeFileAtomic(
        this.path,
        this.#entries.map((e) => `${JSON.stringify(e)}\n`).join(""),
        {
          mode: PRIVATE_FILE_MODE,
          dirMode: PRIVATE_DIR_MODE,
        },
      );
      return;
    }
    const start = this.#endsWithNewline ? "" : "\n";
    await Deno.writeTextFile(this.path, `${start}${JSON.stringify(entry)}\n`, {
      append: true,
      mode: PRIVATE_FILE_MODE,
    });
    this.#endsWithNewline = true;
  }
}

function parseLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string") out.push(value);
    } catch {
      // A torn last line (a crash mid-append) or a hand edit: skip that entry only.
    }
  }
  return out;
}

/** FNV-1a, 64 bits as hex: a stable file name for a folder path, no crypto needed. */
function hashHex(s: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(s)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}
