// Markdown → safe HTML for run reports and memory bodies. `marked` only tokenizes (lazily
// imported, so pages that render no markdown never load it); the HTML is built here from
// the tokens with a fixed set of tags, so sanitizing is by construction:
//   - every text, code and attribute value is escaped;
//   - raw HTML in the source (blocks and inline tags alike) is shown as text, never parsed;
//   - links keep only http(s), mailto and relative targets (see safe_url.ts); images become
//     plain links (no remote fetches from a report, and the page CSP allows none anyway);
//   - no style or event attribute is ever emitted (alignment uses classes).
// Anything unexpected (an unknown token type, a lexer failure) degrades to escaped text.

import type { Token, Tokens } from "marked";
import { escapeHtml, escapeProse } from "./escape.ts";
import { safeUrl } from "./safe_url.ts";

/** Longer input is cut (with a visible note) before lexing to bound the work per page. */
export const MARKDOWN_MAX_CHARS = 512 * 1024;
/** Nesting deeper than this (blockquotes in blockquotes …) is flattened to text. */
const MAX_DEPTH = 32;

type LexFn = (src: string) => Token[];
let lexer: Promise<LexFn> | null = null;

function loadLexer(): Promise<LexFn> {
  lexer ??= import("marked").then(({ Lexer }) => (src: string) =>
    new Lexer({ gfm: true, breaks: false }).lex(src)
  );
  return lexer;
}

/** Renders untrusted markdown to HTML that is safe to place in a page as-is. */
export async function renderMarkdown(source: string): Promise<string> {
  let src = source;
  let note = "";
  if (src.length > MARKDOWN_MAX_CHARS) {
    src = src.slice(0, MARKDOWN_MAX_CHARS);
    note = `<p class="md-note">… truncated at ${MARKDOWN_MAX_CHARS} characters.</p>`;
  }
  let tokens: Token[];
  try {
    tokens = (await loadLexer())(src);
  } catch {
    return `<pre class="md-plain">${escapeHtml(src)}</pre>${note}`;
  }
  try {
    return blocks(tokens, 0) + note;
  } catch {
    // Pathological nesting can exhaust the stack; the text is still worth showing.
    return `<pre class="md-plain">${escapeHtml(src)}</pre>${note}`;
  }
}

function blocks(tokens: readonly Token[], depth: number): string {
  let out = "";
  for (const t of tokens) out += block(t, depth);
  return out;
}

function block(t: Token, depth: number): string {
  if (depth > MAX_DEPTH) return `<p>${escapeHtml(t.raw)}</p>`;
  switch (t.type) {
    case "space":
    case "def":
      return "";
    case "heading": {
      const h = t as Tokens.Heading;
      const level = Math.min(Math.max(Math.trunc(h.depth), 1), 6);
      return `<h${level}>${inline(h.tokens, depth)}</h${level}>\n`;
    }
    case "paragraph":
      return `<p>${inline((t as Tokens.Paragraph).tokens, depth)}</p>\n`;
    case "text": {
      const x = t as Tokens.Text;
      return x.tokens ? inline(x.tokens, depth) : escapeProse(x.text);
    }
    case "code": {
      const c = t as Tokens.Code;
      const lang = (c.lang ?? "").match(/^[A-Za-z0-9_+-]{1,32}/)?.[0];
      const cls = lang ? ` class="language-${lang}"` : "";
      return `<pre><code${cls}>${escapeHtml(c.text)}</code></pre>\n`;
    }
    case "blockquote":
      return `<blockquote>\n${blocks((t as Tokens.Blockquote).tokens, depth + 1)}</blockquote>\n`;
    case "hr":
      return "<hr>\n";
    case "list":
      return list(t as Tokens.List, depth);
    case "table":
      return table(t as Tokens.Table, depth);
    case "html":
      // Raw HTML is shown, not interpreted.
      return (t as Tokens.HTML).block
        ? `<pre class="md-raw">${escapeHtml((t as Tokens.HTML).text)}</pre>\n`
        : escapeHtml((t as Tokens.HTML).text);
    default:
      return `<p>${escapeHtml(t.raw)}</p>\n`;
  }
}

function list(l: Tokens.List, depth: number): string {
  const tag = l.ordered ? "ol" : "ul";
  const start = l.ordered && typeof l.start === "number" && Number.isSafeInteger(l.start) &&
      l.start !== 1
    ? ` start="${l.start}"`
    : "";
  let items = "";
  for (const item of l.items) {
    const body = item.loose ? blocks(item.tokens, depth + 1) : looseless(item.tokens, depth + 1);
    items += item.task ? `<li class="task">${body}</li>\n` : `<li>${body}</li>\n`;
  }
  return `<${tag}${start}>\n${items}</${tag}>\n`;
}

/** A tight list item: its text blocks render inline (no <p>), nested blocks as usual. */
function looseless(tokens: readonly Token[], depth: number): string {
  let out = "";
  for (const t of tokens) {
    if (t.type === "checkbox") out += checkbox(t as Tokens.Checkbox);
    else if (t.type === "text" || t.type === "paragraph") {
      const x = t as Tokens.Text;
      out += x.tokens ? inline(x.tokens, depth) : escapeProse(x.text);
    } else out += block(t, depth);
  }
  return out;
}

function checkbox(c: Tokens.Checkbox): string {
  return `<input type="checkbox" disabled${c.checked ? " checked" : ""} aria-label="${
    c.checked ? "done" : "not done"
  }"> `;
}

function table(t: Tokens.Table, depth: number): string {
  const cell = (c: Tokens.TableCell, tag: "th" | "td") => {
    const cls = c.align ? ` class="align-${c.align}"` : "";
    return `<${tag}${cls}>${inline(c.tokens, depth)}</${tag}>`;
  };
  const head = t.header.map((c) => cell(c, "th")).join("");
  const rows = t.rows.map((r) => `<tr>${r.map((c) => cell(c, "td")).join("")}</tr>`).join("\n");
  return `<div class="md-table"><table>\n<thead><tr>${head}</tr></thead>\n<tbody>${rows}</tbody>\n</table></div>\n`;
}

function inline(tokens: readonly Token[] | undefined, depth: number): string {
  if (!tokens) return "";
  if (depth > MAX_DEPTH) return tokens.map((t) => escapeHtml(t.raw)).join("");
  let out = "";
  for (const t of tokens) out += inlineOne(t, depth);
  return out;
}

function inlineOne(t: Token, depth: number): string {
  switch (t.type) {
    case "text": {
      const x = t as Tokens.Text;
      // `escaped` marks text inside a raw HTML block; here raw HTML is text, so escape it.
      return x.tokens ? inline(x.tokens, depth + 1) : escapeProse(x.text);
    }
    case "escape":
      return escapeHtml((t as Tokens.Escape).text);
    case "strong":
      return `<strong>${inline((t as Tokens.Strong).tokens, depth + 1)}</strong>`;
    case "em":
      return `<em>${inline((t as Tokens.Em).tokens, depth + 1)}</em>`;
    case "del":
      return `<del>${inline((t as Tokens.Del).tokens, depth + 1)}</del>`;
    case "codespan":
      return `<code>${escapeHtml((t as Tokens.Codespan).text)}</code>`;
    case "br":
      return "<br>";
    case "link":
      return link(t as Tokens.Link, depth);
    case "image":
      return image(t as Tokens.Image);
    case "html":
      return escapeHtml((t as Tokens.Tag).text);
    case "checkbox":
      return checkbox(t as Tokens.Checkbox);
    default:
      return escapeHtml(t.raw);
  }
}

function link(l: Tokens.Link, depth: number): string {
  const label = l.autolink ? escapeHtml(l.text) : inline(l.tokens, depth + 1);
  const href = safeUrl(l.href);
  if (href === null) return `<span class="md-unsafe-link">${label}</span>`;
  const title = l.title ? ` title="${escapeHtml(l.title)}"` : "";
  return `<a href="${escapeHtml(href)}"${title} rel="noopener noreferrer nofollow">${label}</a>`;
}

function image(i: Tokens.Image): string {
  const alt = i.text.trim() === "" ? "image" : i.text;
  const href = safeUrl(i.href);
  const label = `[image: ${escapeHtml(alt)}]`;
  if (href === null) return `<span class="md-unsafe-link">${label}</span>`;
  return `<a class="md-image" href="${
    escapeHtml(href)
  }" rel="noopener noreferrer nofollow">${label}</a>`;
}
