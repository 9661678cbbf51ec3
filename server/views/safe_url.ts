// Which link targets a rendered report or memory body may carry. Only web and mail links
// and relative paths pass; javascript:, data:, vbscript:, file: and every other scheme are
// dropped, including spellings hidden by character references or control characters.

import { decodeReferences } from "./escape.ts";

const ALLOWED_SCHEMES: ReadonlySet<string> = new Set(["http", "https", "mailto"]);

/**
 * The URL to put in an href (still to be attribute-escaped), or null when it must not be a
 * link. The check runs on what the browser would read: references decoded, tab/newline and
 * other control characters removed (browsers drop them inside URLs), spaces trimmed.
 */
export function safeUrl(href: string): string | null {
  // deno-lint-ignore no-control-regex
  const cleaned = decodeReferences(href).replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (cleaned === "") return null;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.\-]*):/.exec(cleaned);
  if (scheme) return ALLOWED_SCHEMES.has(scheme[1]!.toLowerCase()) ? cleaned : null;
  // No scheme: a relative path, a query, a fragment or //host (same scheme as the page).
  return cleaned;
}
