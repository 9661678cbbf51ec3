// Text that leaves the process (chat, push, logs) is cleaned here first: control characters
// and invisible direction overrides removed, length capped.

/** C0/C1 controls except tab and newline, plus zero-width and bidi override characters. */
const UNSAFE = new RegExp(
  "[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F" +
    "\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]",
  "g",
);

export interface SanitizeOptions {
  /** Maximum length in characters (code points) of the result, ellipsis included. */
  max: number;
  /** Collapse every run of whitespace, newlines included, to one space (titles). */
  singleLine?: boolean;
}

export const TITLE_MAX = 200;
export const BODY_MAX = 1500;

/** Control and invisible characters removed (no other change). */
export function stripUnsafe(text: string): string {
  return text.replace(UNSAFE, "");
}

/** Strips control and invisible characters and caps the length, ending a cut with "…". */
export function sanitizeText(text: unknown, options: SanitizeOptions): string {
  let s = typeof text === "string" ? text : text === undefined || text === null ? "" : String(text);
  s = s.replace(/\r\n?/g, "\n").replace(UNSAFE, "");
  s = options.singleLine ? s.replace(/\s+/g, " ").trim() : s.replace(/\n{3,}/g, "\n\n").trim();
  const chars = Array.from(s);
  if (chars.length <= options.max) return s;
  if (options.max <= 0) return "";
  return chars.slice(0, options.max - 1).join("").trimEnd() + "…";
}

/** A one-line title of at most 200 characters. */
export function sanitizeTitle(text: unknown): string {
  return sanitizeText(text, { max: TITLE_MAX, singleLine: true });
}

/** A body of at most `max` (default 1500) characters. */
export function sanitizeBody(text: unknown, max = BODY_MAX): string {
  return sanitizeText(text, { max });
}
