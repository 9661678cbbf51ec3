// The message box's state: the text (line breaks included), the cursor, collapsed pastes,
// history walking and search, and Tab completion. It reads key events (keys.ts) and says what
// happened; drawing is editor_view.ts's job and the terminal's reading is node_terminal.ts's.
// Pure apart from the completer it is given, so it is tested without a terminal.

import type { KeyEvent } from "./keys.ts";
import type { Completer, InputEvent } from "./terminal.ts";

export type { Completer, Completion } from "./terminal.ts";

/** A paste longer than this many lines (or characters) is shown as one placeholder. */
const COLLAPSE_LINES = 10;
const COLLAPSE_CHARS = 2_000;
const MENU_ROWS = 8;

export class LineEditor {
  text = "";
  cursor = 0;
  /** Lines shown under the input: completion choices or the history search. */
  footer: string[] = [];
  readonly #pastes = new Map<string, string>();
  /** Newest last. */
  readonly #history: string[];
  /** Index into history while walking it; history.length is the draft being typed. */
  #historyAt: number;
  #draft = "";
  #search: { query: string; at: number; saved: string } | undefined;
  #menu: { from: number; to: number; candidates: string[]; index: number } | undefined;
  readonly #complete: Completer | undefined;

  constructor(opts: { history?: readonly string[]; draft?: string; complete?: Completer } = {}) {
    this.#history = [...(opts.history ?? [])];
    this.#historyAt = this.#history.length;
    this.#complete = opts.complete;
    if (opts.draft) this.#insert(opts.draft);
  }

  /** The text as it will be sent: collapsed pastes put back whole. */
  get value(): string {
    let out = this.text;
    for (const [label, content] of this.#pastes) out = out.split(label).join(content);
    return out;
  }

  /** Applies one key event; returns an input event when the reading is over. */
  async handle(event: KeyEvent): Promise<InputEvent | undefined> {
    if (event.type === "paste") {
      this.#closeMenu();
      if (this.#search) this.#endSearch(true);
      this.#paste(event.text);
      return undefined;
    }
    if (this.#search) return this.#searchKey(event);
    if (event.name === "tab" && !event.shift) {
      await this.#tab();
      return undefined;
    }
    this.#closeMenu();
    return this.#key(event);
  }

  #key(k: Extract<KeyEvent, { type: "key" }>): InputEvent | undefined {
    if (k.ctrl && k.name === "char") return this.#control(k.char ?? "");
    switch (k.name) {
      case "enter":
        if (this.#before().endsWith("\\") && this.#atLineEnd()) {
          this.#deleteBack();
          this.#insert("\n");
          return undefined;
        }
        return { type: "line", text: this.value };
      case "newline":
        this.#insert("\n");
        return undefined;
      case "backspace":
        if (k.alt || k.ctrl) this.#deleteWordBack();
        else this.#deleteBack();
        return undefined;
      case "delete":
        this.#deleteForward();
        return undefined;
      case "left":
        this.cursor = k.ctrl || k.alt ? this.#wordLeft() : prevIndex(this.text, this.cursor);
        return undefined;
      case "right":
        this.cursor = k.ctrl || k.alt ? this.#wordRight() : nextIndex(this.text, this.cursor);
        return undefined;
      case "home":
        this.cursor = this.#lineStart();
        return undefined;
      case "end":
        this.cursor = this.#lineEnd();
        return undefined;
      case "up":
        this.#vertical(-1);
        return undefined;
      case "down":
        this.#vertical(1);
        return undefined;
      case "char":
        if (k.alt && k.char === "b") this.cursor = this.#wordLeft();
        else if (k.alt && k.char === "f") this.cursor = this.#wordRight();
        else if (!k.alt && k.char !== undefined) this.#insert(k.char);
        return undefined;
      default:
        return undefined;
    }
  }

  #control(char: string): InputEvent | undefined {
    switch (char) {
      case "c":
        return this.text === "" ? { type: "quit", key: "ctrl+c" } : { type: "cancel" };
      case "d":
        if (this.text === "") return { type: "quit", key: "ctrl+d" };
        this.#deleteForward();
        return undefined;
      case "q":
        return { type: "quit", key: "ctrl+q" };
      case "o":
        return { type: "expand", draft: this.value };
      case "a":
        this.cursor = this.#lineStart();
        return undefined;
      case "e":
        this.cursor = this.#lineEnd();
        return undefined;
      case "b":
        this.cursor = prevIndex(this.text, this.cursor);
        return undefined;
      case "f":
        this.cursor = nextIndex(this.text, this.cursor);
        return undefined;
      case "u":
        this.#cut(this.#lineStart(), this.cursor);
        return undefined;
      case "k":
        this.#cut(this.cursor, this.#lineEnd());
        return undefined;
      case "w":
        this.#deleteWordBack();
        return undefined;
      case "p":
        this.#walkHistory(-1);
        return undefined;
      case "n":
        this.#walkHistory(1);
        return undefined;
      case "r":
        this.#search = { query: "", at: this.#history.length, saved: this.text };
        this.#runSearch(false);
        return undefined;
      default:
        return undefined;
    }
  }

  // ---- history ----

  /** Up and down move between lines; past the first or last line they walk the history. */
  #vertical(direction: -1 | 1): void {
    const lineStart = this.#lineStart();
    const column = this.cursor - lineStart;
    if (direction === -1 && lineStart > 0) {
      const prevStart = this.text.lastIndexOf("\n", lineStart - 2) + 1;
      this.cursor = Math.min(prevStart + column, lineStart - 1);
      return;
    }
    const lineEnd = this.#lineEnd();
    if (direction === 1 && lineEnd < this.text.length) {
      const nextStart = lineEnd + 1;
      const nextEnd = this.text.indexOf("\n", nextStart);
      this.cursor = Math.min(nextStart + column, nextEnd === -1 ? this.text.length : nextEnd);
      return;
    }
    this.#walkHistory(direction);
  }

  #walkHistory(direction: -1 | 1): void {
    const target = this.#historyAt + direction;
    if (target < 0 || target > this.#history.length) return;
    if (this.#historyAt === this.#history.length) this.#draft = this.text;
    this.#historyAt = target;
    this.text = target === this.#history.length ? this.#draft : this.#history[target]!;
    // Going back lands on the entry's first line, so the next up walks on at once.
    const firstBreak = this.text.indexOf("\n");
    this.cursor = direction === -1 && firstBreak !== -1 ? firstBreak : this.text.length;
  }

  #searchKey(k: Extract<KeyEvent, { type: "key" }>): InputEvent | undefined {
    const search = this.#search!;
    if (k.ctrl && k.char === "r") {
      this.#runSearch(true);
    } else if (k.ctrl && (k.char === "g" || k.char === "c") || k.name === "escape") {
      this.#endSearch(false);
    } else if (k.name === "backspace") {
      search.query = [...search.query].slice(0, -1).join("");
      search.at = this.#history.length;
      this.#runSearch(false);
    } else if (k.name === "char" && !k.ctrl && !k.alt && k.char !== undefined) {
      search.query += k.char;
      this.#runSearch(false);
    } else {
      // Any other key accepts the match and is then applied as usual (Enter sends it).
      this.#endSearch(true);
      return this.#key(k);
    }
    return undefined;
  }

  /** Finds the newest entry older than the current match that contains the query. */
  #runSearch(older: boolean): void {
    const search = this.#search!;
    const start = older ? search.at - 1 : Math.min(search.at, this.#history.length - 1);
    let found = -1;
    for (let i = start; i >= 0; i--) {
      if (this.#history[i]!.toLowerCase().includes(search.query.toLowerCase())) {
        found = i;
        break;
      }
    }
    if (found !== -1) {
      search.at = found;
      this.text = this.#history[found]!;
      this.cursor = this.text.length;
    }
    const state = found === -1 && search.query !== "" ? "no match for" : "search history:";
    this.footer = [`(ctrl+r) ${state} ${search.query}▏ · enter to send, esc to cancel`];
  }

  #endSearch(accept: boolean): void {
    const search = this.#search!;
    this.#search = undefined;
    this.footer = [];
    if (!accept) {
      this.text = search.saved;
      this.cursor = this.text.length;
    }
  }

  // ---- completion ----

  /** Tab: one candidate is inserted; several insert their common start, then cycle. */
  async #tab(): Promise<void> {
    if (this.#menu) {
      const menu = this.#menu;
      menu.index = (menu.index + 1) % menu.candidates.length;
      this.#applyMenu();
      return;
    }
    const found = await this.#complete?.(this.text, this.cursor);
    if (!found || found.candidates.length === 0) {
      this.footer = this.#complete ? ["no completions"] : [];
      return;
    }
    if (found.candidates.length === 1) {
      this.#replace(found.from, found.to, found.candidates[0]!);
      this.footer = [];
      return;
    }
    const common = commonPrefix(found.candidates);
    const typed = this.text.slice(found.from, found.to);
    if (common.length > typed.length && common.startsWith(typed)) {
      this.#replace(found.from, found.to, common);
      this.footer = this.#menuLines(found.candidates, -1);
      return;
    }
    this.#menu = { ...found, index: 0 };
    this.#applyMenu();
  }

  #applyMenu(): void {
    const menu = this.#menu!;
    const choice = menu.candidates[menu.index]!;
    this.#replace(menu.from, menu.to, choice);
    menu.to = menu.from + choice.length;
    this.footer = this.#menuLines(menu.candidates, menu.index);
  }

  #menuLines(candidates: string[], selected: number): string[] {
    const start = Math.max(0, Math.min(selected, candidates.length - MENU_ROWS));
    const shown = candidates.slice(start, start + MENU_ROWS).map((c, i) =>
      `${i + start === selected ? "›" : " "} ${c.trimEnd()}`
    );
    const more = candidates.length - shown.length;
    return more > 0 ? [...shown, `  … ${more} more (tab cycles)`] : shown;
  }

  #closeMenu(): void {
    if (this.#menu || this.footer.length > 0) this.footer = [];
    this.#menu = undefined;
  }

  // ---- editing ----

  #paste(raw: string): void {
    const text = raw.replace(/\t/g, "  ");
    const lines = text.split("\n").length;
    if (lines > COLLAPSE_LINES || text.length > COLLAPSE_CHARS) {
      const label = `[pasted ${lines} lines #${this.#pastes.size + 1}]`;
      this.#pastes.set(label, text);
      this.#insert(label);
      return;
    }
    this.#insert(text);
  }

  #insert(s: string): void {
    this.text = this.text.slice(0, this.cursor) + s + this.text.slice(this.cursor);
    this.cursor += s.length;
  }

  #replace(from: number, to: number, s: string): void {
    this.text = this.text.slice(0, from) + s + this.text.slice(to);
    this.cursor = from + s.length;
  }

  #cut(from: number, to: number): void {
    if (to <= from) return;
    this.text = this.text.slice(0, from) + this.text.slice(to);
    this.cursor = from;
  }

  /** Backspace; right after a collapsed paste it removes the whole paste. */
  #deleteBack(): void {
    const before = this.#before();
    for (const label of this.#pastes.keys()) {
      if (before.endsWith(label)) {
        this.#cut(this.cursor - label.length, this.cursor);
        this.#pastes.delete(label);
        return;
      }
    }
    this.#cut(prevIndex(this.text, this.cursor), this.cursor);
  }

  #deleteForward(): void {
    this.#cut(this.cursor, nextIndex(this.text, this.cursor));
  }

  #deleteWordBack(): void {
    this.#cut(this.#wordLeft(), this.cursor);
  }

  #wordLeft(): number {
    const m = /\S*\s*$/.exec(this.#before());
    return this.cursor - (m?.[0].length ?? 0);
  }

  #wordRight(): number {
    const m = /^\s*\S*/.exec(this.text.slice(this.cursor));
    return this.cursor + (m?.[0].length ?? 0);
  }

  #before(): string {
    return this.text.slice(0, this.cursor);
  }

  #lineStart(): number {
    return this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  #lineEnd(): number {
    const end = this.text.indexOf("\n", this.cursor);
    return end === -1 ? this.text.length : end;
  }

  #atLineEnd(): boolean {
    return this.cursor === this.#lineEnd();
  }
}

function prevIndex(s: string, i: number): number {
  if (i <= 0) return 0;
  const code = s.charCodeAt(i - 1);
  return code >= 0xdc00 && code <= 0xdfff && i >= 2 ? i - 2 : i - 1;
}

function nextIndex(s: string, i: number): number {
  if (i >= s.length) return s.length;
  const code = s.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff ? i + 2 : i + 1;
}

function commonPrefix(words: string[]): string {
  let prefix = words[0] ?? "";
  for (const w of words) {
    while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
