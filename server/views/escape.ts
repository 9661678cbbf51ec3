// HTML escaping for the few places that build markup as strings (the markdown renderer).
// Everything else goes through hono/jsx, which escapes text and attribute values itself.

const FULL: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes every markup character, `&` included: the browser shows exactly `text`. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => FULL[c]!);
}

/**
 * Like escapeHtml, but keeps well-formed character references (`&amp;`, `&#169;`, `&#x1F600;`)
 * so markdown prose shows `&copy;` as ©, as CommonMark asks. A reference can only ever name
 * a character, never markup, so keeping them cannot open a tag or an attribute.
 */
export function escapeProse(text: string): string {
  return text.replace(
    /&(?!(?:[a-zA-Z][a-zA-Z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});)|[<>"']/g,
    (c) => FULL[c]!,
  );
}

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  colon: ":",
  tab: "\t",
  newline: "\n",
  nbsp: "\u00a0",
  sol: "/",
  lpar: "(",
  rpar: ")",
  period: ".",
  comma: ",",
  excl: "!",
};

/**
 * Decodes numeric references and the named ones that matter for URL schemes, the way a
 * browser would before it reads an href, so a scheme check sees what the browser sees.
 */
export function decodeReferences(text: string): string {
  return text.replace(
    /&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g,
    (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (dec !== undefined || hex !== undefined) {
        const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
      }
      return NAMED[name!.toLowerCase()] ?? whole;
    },
  );
}
