// Raw terminal input to key events. One decoder per input stream; it keeps state across
// chunks (a bracketed paste or an escape sequence may be split between reads).
//
// What it understands, and why each matters for a message box:
// - bracketed paste (`ESC[200~ … ESC[201~`): the whole paste is one `paste` event, its line
//   breaks kept, whatever keys are encoded inside it (tmux with extended keys turns a CR
//   inside a paste into `ESC[13;1u`);
// - CSI u, from the kitty keyboard protocol and tmux/xterm extended keys (`ESC[13;2u` is
//   Shift+Enter), and xterm's modifyOtherKeys form (`ESC[27;2;13~`);
// - a paste that arrives unbracketed in one read: a CR with more input after it in the same
//   chunk is a line break, not Enter (a person cannot type Enter and more in one read);
// - the usual cursor keys in their CSI and SS3 forms, with modifiers.

export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "tab"
  | "escape"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "char";

export interface Key {
  type: "key";
  name: KeyName;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  /** The character of a `char` key (a letter for ctrl+letter). */
  char?: string;
}

export type KeyEvent = { type: "paste"; text: string } | Key;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

export class KeyDecoder {
  #pending = "";
  #paste: string | undefined;

  /** Decodes one chunk as read from the terminal. */
  feed(chunk: string): KeyEvent[] {
    const s = this.#pending + chunk;
    this.#pending = "";
    const events: KeyEvent[] = [];
    let i = 0;
    while (i < s.length) {
      if (this.#paste !== undefined) {
        const end = s.indexOf(PASTE_END, i);
        if (end === -1) {
          const keep = partialSuffix(s, PASTE_END);
          this.#paste += s.slice(i, s.length - keep);
          this.#pending = s.slice(s.length - keep);
          return events;
        }
        this.#paste += s.slice(i, end);
        events.push({ type: "paste", text: pasteText(this.#paste) });
        this.#paste = undefined;
        i = end + PASTE_END.length;
        continue;
      }
      if (s.startsWith(PASTE_START, i)) {
        this.#paste = "";
        i += PASTE_START.length;
        continue;
      }
      const ch = s[i]!;
      if (ch === "\x1b") {
        const seq = readEscape(s, i);
        if (seq === "incomplete") {
          this.#pending = s.slice(i);
          return events;
        }
        if (seq.event) events.push(seq.event);
        i = seq.end;
        continue;
      }
      if (ch === "\r" || ch === "\n") {
        // More input after a CR in the same read: a paste that came unbracketed. A lone LF is
        // Enter too: typed before the terminal left cooked mode, Enter arrives as LF.
        const last = i === s.length - 1 ||
          (ch === "\r" && s[i + 1] === "\n" && i + 1 === s.length - 1);
        events.push(key(last ? "enter" : "newline"));
        i += ch === "\r" && s[i + 1] === "\n" ? 2 : 1;
        continue;
      }
      events.push(controlKey(ch) ?? charKey(s.codePointAt(i)!));
      i += ch.length === 1 && s.codePointAt(i)! > 0xffff ? 2 : 1;
    }
    return coalesceUnbracketed(events);
  }
}

/** A lone ESC at the end of a read is the Escape key, not the start of a sequence. */
function readEscape(
  s: string,
  start: number,
): { event?: KeyEvent; end: number } | "incomplete" {
  const next = s[start + 1];
  if (next === undefined) return { event: key("escape"), end: start + 1 };
  if (next === "[" || next === "O") {
    let i = start + 2;
    while (i < s.length && !(s[i]! >= "@" && s[i]! <= "~")) i++;
    if (i >= s.length) return "incomplete";
    const event = csiKey(next, s.slice(start + 2, i), s[i]!);
    return event ? { event, end: i + 1 } : { end: i + 1 };
  }
  if (next === "\x1b") return { event: key("escape"), end: start + 1 };
  // ESC + a key: Alt held.
  if (next === "\r" || next === "\n") {
    return { event: key("newline", { alt: true }), end: start + 2 };
  }
  if (next === "\x7f" || next === "\b") {
    return { event: key("backspace", { alt: true }), end: start + 2 };
  }
  const code = s.codePointAt(start + 1)!;
  const base = charKey(code);
  return {
    event: base.type === "key" ? { ...base, alt: true } : base,
    end: start + 1 + (code > 0xffff ? 2 : 1),
  };
}

function csiKey(intro: string, body: string, final: string): KeyEvent | undefined {
  const params = body.split(";");
  const mods = modifiers(Number(params[1]?.split(":")[0] ?? "1"));
  if (intro === "[" && final === "u") {
    // CSI code[:alt] ; mods[:event] [; text] u — kitty and extended keys.
    const event = params[1]?.split(":")[1];
    if (event === "3") return undefined; // a key release
    return codeKey(Number(params[0]!.split(":")[0]), mods);
  }
  if (intro === "[" && final === "~" && params[0] === "27" && params.length >= 3) {
    // xterm modifyOtherKeys: CSI 27 ; mods ; code ~
    return codeKey(Number(params[2]), modifiers(Number(params[1])));
  }
  const arrows: Record<string, KeyName> = {
    A: "up",
    B: "down",
    C: "right",
    D: "left",
    H: "home",
    F: "end",
  };
  if (arrows[final]) return key(arrows[final]!, mods);
  if (final === "~") {
    const tilde: Record<string, KeyName> = {
      "1": "home",
      "7": "home",
      "4": "end",
      "8": "end",
      "3": "delete",
    };
    const name = tilde[params[0] ?? ""];
    return name ? key(name, mods) : undefined;
  }
  if (final === "Z") return key("tab", { shift: true });
  return undefined;
}

function codeKey(code: number, mods: Mods): KeyEvent | undefined {
  if (!Number.isFinite(code)) return undefined;
  if (code === 13) {
    return mods.shift || mods.alt || mods.ctrl ? key("newline", mods) : key("enter", mods);
  }
  if (code === 9) return key("tab", mods);
  if (code === 27) return key("escape", mods);
  if (code === 127 || code === 8) return key("backspace", mods);
  if (code < 32) return controlKey(String.fromCharCode(code));
  const char = String.fromCodePoint(code);
  return { type: "key", name: "char", char: mods.shift ? char.toUpperCase() : char, ...mods };
}

interface Mods {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

/** The xterm modifier parameter: 1 + (shift 1, alt 2, ctrl 4). */
function modifiers(param: number): Mods {
  const bits = Number.isFinite(param) && param > 1 ? param - 1 : 0;
  return { shift: (bits & 1) !== 0, alt: (bits & 2) !== 0, ctrl: (bits & 4) !== 0 };
}

function key(name: KeyName, mods: Partial<Mods> = {}): Key {
  return {
    type: "key",
    name,
    ctrl: mods.ctrl ?? false,
    alt: mods.alt ?? false,
    shift: mods.shift ?? false,
  };
}

function controlKey(ch: string): KeyEvent | undefined {
  if (ch === "\x7f" || ch === "\b") return key("backspace");
  if (ch === "\t") return key("tab");
  const code = ch.charCodeAt(0);
  if (code < 32) {
    return { ...key("char", { ctrl: true }), char: String.fromCharCode(code + 96) };
  }
  return undefined;
}

function charKey(code: number): KeyEvent {
  return { ...key("char"), char: String.fromCodePoint(code) };
}

/** Line breaks of a paste as "\n", whatever the terminal encoded them as. */
function pasteText(raw: string): string {
  const csi = (body: string) => new RegExp(`\x1b\\[${body}`, "g");
  return raw
    .replace(csi("13(;1)?(:1)?u"), "\r")
    .replace(csi("27;1;13~"), "\r")
    .replace(csi("9(;1)?u"), "\t")
    .replace(/\r\n?/g, "\n")
    .replace(csi("[0-9;:]*[A-Za-z~]"), "");
}

/**
 * An unbracketed paste decodes to characters with `newline` keys between them. When a read held
 * such a line break, its plain characters, breaks and a final Enter become one paste event, so
 * the editor treats it like a bracketed one: nothing is sent before the user presses Enter.
 */
function coalesceUnbracketed(events: KeyEvent[]): KeyEvent[] {
  const isBreak = (e: KeyEvent) =>
    e.type === "key" && e.name === "newline" && !e.alt && !e.shift && !e.ctrl;
  if (!events.some(isBreak)) return events;
  const out: KeyEvent[] = [];
  let run = "";
  const flush = () => {
    if (run !== "") out.push({ type: "paste", text: run });
    run = "";
  };
  for (const e of events) {
    if (e.type === "key" && !e.ctrl && !e.alt) {
      if (e.name === "char" && e.char !== undefined) {
        run += e.char;
        continue;
      }
      if (e.name === "tab") {
        run += "\t";
        continue;
      }
      if (isBreak(e) || (e.name === "enter" && !e.shift)) {
        run += "\n";
        continue;
      }
    }
    flush();
    out.push(e);
  }
  flush();
  return out;
}

/** How many characters at the end of `s` could begin `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) {
    if (s.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}
