// The one rule on how deeply a JSON text from outside may nest, checked before it is parsed.
// JSON.parse itself copes with deep nesting, but everything after it walks the value
// recursively (validation, JSON.stringify into the store, SQLite's JSON functions, the page
// views), and a body nested 60,000 deep overflowed the stack there and answered 500. Both
// doors' JSON bodies (server/http/json_body.ts) and the webhook door (core/recipes/webhook.ts)
// call jsonDepthRefusal, so one limit holds everywhere.

/**
 * Deepest nesting of arrays and objects accepted. No body the outpost takes needs more than a
 * handful of levels (a job's meta, a GitHub payload's issue.user); 64 leaves room for any
 * honest client and stays far below where a recursive walk runs out of stack.
 */
export const JSON_MAX_DEPTH = 64;

/**
 * Why `text` may not be parsed (it nests deeper than `max`), or null. A linear scan that
 * skips string contents; it does not validate the JSON (JSON.parse does that next).
 */
export function jsonDepthRefusal(text: string, max: number = JSON_MAX_DEPTH): string | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) {
        return `nested deeper than ${max} levels of arrays and objects; flatten the value`;
      }
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return null;
}
