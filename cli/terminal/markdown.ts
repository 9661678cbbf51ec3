// Markdown for the terminal, rendered from marked's tokens (marked is the parser the dashboard
// uses too): headings, paragraphs and list items with their inline formatting, nested and
// task lists, tables with their column alignment, block quotes, rules, and code blocks
// highlighted by cli-highlight. Prose is wrapped at word boundaries to the width given.
// marked-terminal 7.3.1 was dropped: with marked 18 it printed inline formatting inside list
// items raw (`**Helo**`), ignored right-aligned columns, and did not wrap.
// Heavy (highlight.js), so it is reached only through interactive_markdown.ts's dynamic
// import, never at start-up. Colors come from the session's Style, so NO_COLOR and the rest
// of the screen agree.

import { Marked, type Token, type Tokens } from "marked";
import { highlight } from "cli-highlight";
import type { Style } from "./style.ts";
import { charWidth, textWidth } from "./text_width.ts";

export interface MarkdownRenderer {
  /** Terminal text for complete markdown blocks; ends with exactly one newline. */
  render(markdown: string): string;
  /**
   * How much of `text` is made of complete blocks: a block is complete once another block
   * has started after it (so an open code fence or a list still growing never is).
   */
  completeLength(text: string): number;
}

export function makeMarkdownRenderer(width: number, style: Style): MarkdownRenderer {
  const marked = new Marked();
  const r = new TokenRenderer(style);
  return {
    render(markdown: string): string {
      const lines = r.blocks(marked.lexer(markdown), Math.max(20, width));
      return `${lines.join("\n").replace(/\s+$/, "")}\n`;
    },
    completeLength(text: string): number {
      const tokens: Token[] = marked.lexer(text);
      let lastBlock = -1;
      for (let i = tokens.length - 1; i >= 0; i--) {
        if (tokens[i]!.type !== "space") {
          lastBlock = i;
          break;
        }
      }
      let length = 0;
      for (let i = 0; i < lastBlock; i++) length += tokens[i]!.raw.length;
      return length;
    },
  };
}

class TokenRenderer {
  constructor(readonly style: Style) {}

  /** Block tokens to lines, a blank line between blocks. */
  blocks(tokens: Token[], width: number): string[] {
    const out: string[] = [];
    for (const token of tokens) {
      if (token.type === "space") continue;
      const lines = this.block(token, width);
      if (lines.length === 0) continue;
      if (out.length > 0) out.push("");
      out.push(...lines);
    }
    return out;
  }

  block(token: Token, width: number): string[] {
    const s = this.style;
    switch (token.type) {
      case "heading": {
        const t = token as Tokens.Heading;
        return wrap(this.inline(t.tokens), width).map((l) => s.bold(s.cyan(l)));
      }
      case "paragraph":
        return wrap(this.inline((token as Tokens.Paragraph).tokens), width);
      case "text": {
        const t = token as Tokens.Text;
        return wrap(t.tokens ? this.inline(t.tokens) : t.text, width);
      }
      case "list":
        return this.list(token as Tokens.List, width);
      case "table":
        return this.table(token as Tokens.Table, width);
      case "code":
        return this.code(token as Tokens.Code);
      case "blockquote": {
        const inner = this.blocks((token as Tokens.Blockquote).tokens, width - 2);
        return inner.map((l) => `${s.dim("│")} ${s.italic(l)}`);
      }
      case "hr":
        return [s.dim("─".repeat(Math.min(width, 40)))];
      case "html":
        return wrap(s.dim((token as Tokens.HTML).text.trimEnd()), width);
      default:
        return "raw" in token && typeof token.raw === "string"
          ? wrap(token.raw.trimEnd(), width)
          : [];
    }
  }

  list(list: Tokens.List, width: number): string[] {
    const out: string[] = [];
    const start = typeof list.start === "number" ? list.start : 1;
    const marks = list.items.map((item, i) => {
      const base = list.ordered ? `${start + i}.` : "•";
      return item.task ? `${base} [${item.checked ? "x" : " "}]` : base;
    });
    const indent = Math.max(...marks.map((m) => m.length)) + 1;
    list.items.forEach((item, i) => {
      const body = this.itemBlocks(item.tokens, width - indent);
      const mark = marks[i]!.padEnd(indent);
      body.forEach((line, j) => {
        out.push(j === 0 ? `${mark}${line}` : line === "" ? "" : `${" ".repeat(indent)}${line}`);
      });
      if (list.loose && i < list.items.length - 1) out.push("");
    });
    return out;
  }

  /** A list item's blocks, tight: a nested list follows its text without a blank line. */
  itemBlocks(tokens: Token[], width: number): string[] {
    const out: string[] = [];
    for (const token of tokens) {
      if (token.type === "space" || token.type === "checkbox") continue;
      out.push(...this.block(token, width));
    }
    return out.length > 0 ? out : [""];
  }

  table(table: Tokens.Table, width: number): string[] {
    const s = this.style;
    const head = table.header.map((c) => this.inline(c.tokens));
    const rows = table.rows.map((r) => r.map((c) => this.inline(c.tokens)));
    const columns = head.length;
    const natural = head.map((h, i) =>
      Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? "")), 1)
    );
    const widths = fitColumns(natural, width - (3 * columns + 1));
    const border = (l: string, m: string, r: string) =>
      s.dim(`${l}${widths.map((w) => "─".repeat(w + 2)).join(m)}${r}`);
    const row = (cells: string[], paint: (t: string) => string) => {
      const wrapped = cells.map((c, i) => wrap(c, widths[i]!));
      const height = Math.max(...wrapped.map((w) => w.length));
      const lines: string[] = [];
      for (let k = 0; k < height; k++) {
        const parts = widths.map((w, i) =>
          paint(align(wrapped[i]?.[k] ?? "", w, table.align[i] ?? null))
        );
        lines.push(`${s.dim("│")} ${parts.join(` ${s.dim("│")} `)} ${s.dim("│")}`);
      }
      return lines;
    };
    return [
      border("┌", "┬", "┐"),
      ...row(head, s.bold),
      border("├", "┼", "┤"),
      ...rows.flatMap((r) => row(r, (t) => t)),
      border("└", "┴", "┘"),
    ];
  }

  code(token: Tokens.Code): string[] {
    const text = token.text.replace(/\n$/, "");
    let painted = text;
    if (this.style.colors) {
      const language = token.lang?.split(/\s/)[0];
      painted = highlight(text, { ...(language ? { language } : {}), ignoreIllegals: true });
    }
    return painted.split("\n").map((l) => `  ${l}`);
  }

  inline(tokens: Token[] | undefined): string {
    const s = this.style;
    let out = "";
    for (const t of tokens ?? []) {
      switch (t.type) {
        case "strong":
          out += s.bold(this.inline((t as Tokens.Strong).tokens));
          break;
        case "em":
          out += s.italic(this.inline((t as Tokens.Em).tokens));
          break;
        case "codespan":
          out += s.yellow(
            (t as Tokens.Codespan).text.replace(/&#39;|&quot;|&amp;|&lt;|&gt;/g, unescape),
          );
          break;
        case "del":
          out += s.dim(this.inline((t as Tokens.Del).tokens));
          break;
        case "link": {
          const link = t as Tokens.Link;
          const label = this.inline(link.tokens);
          out += link.href === link.text ? s.cyan(link.href) : `${label} (${s.cyan(link.href)})`;
          break;
        }
        case "image":
          out += `[image: ${(t as Tokens.Image).text}] (${s.cyan((t as Tokens.Image).href)})`;
          break;
        case "br":
          out += "\n";
          break;
        case "text": {
          const text = t as Tokens.Text;
          out += text.tokens ? this.inline(text.tokens) : unescapeAll(text.text);
          break;
        }
        case "escape":
          out += (t as Tokens.Escape).text;
          break;
        default:
          out += "raw" in t ? String(t.raw) : "";
      }
    }
    return out;
  }
}

const ENTITIES: Record<string, string> = {
  "&#39;": "'",
  "&quot;": '"',
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
};

function unescape(entity: string): string {
  return ENTITIES[entity] ?? entity;
}

function unescapeAll(text: string): string {
  return text.replace(/&#39;|&quot;|&amp;|&lt;|&gt;/g, unescape);
}

const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** Columns a styled string takes (SGR codes take none). */
export function visible(text: string): number {
  return textWidth(text.replace(SGR, ""));
}

/**
 * Wraps styled text at word boundaries to `width` columns; line breaks in the text are kept.
 * A word longer than the width gets a row of its own and is cut there.
 */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    let used = 0;
    for (const word of paragraph.split(/ +/)) {
      if (word === "") continue;
      const w = visible(word);
      if (used > 0 && used + 1 + w > width) {
        out.push(line);
        line = "";
        used = 0;
      }
      if (w > width && used === 0) {
        const chunks = cutWord(word, width);
        out.push(...chunks.slice(0, -1));
        line = chunks.at(-1)!;
        used = visible(line);
        continue;
      }
      line += used > 0 ? ` ${word}` : word;
      used += (used > 0 ? 1 : 0) + w;
    }
    out.push(line);
  }
  return out;
}

/** A word cut into pieces of `width` visible characters (its SGR codes kept in place). */
function cutWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  let count = 0;
  for (const part of word.split(new RegExp(`(${SGR.source})`))) {
    if (SGR.test(part)) {
      SGR.lastIndex = 0;
      piece += part;
      continue;
    }
    for (const ch of part) {
      const w = charWidth(ch.codePointAt(0)!);
      if (count + w > width) {
        pieces.push(piece);
        piece = "";
        count = 0;
      }
      piece += ch;
      count += w;
    }
  }
  pieces.push(piece);
  return pieces;
}

function align(text: string, width: number, how: "left" | "right" | "center" | null): string {
  const room = Math.max(0, width - visible(text));
  if (how === "right") return " ".repeat(room) + text;
  if (how === "center") {
    const left = Math.floor(room / 2);
    return " ".repeat(left) + text + " ".repeat(room - left);
  }
  return text + " ".repeat(room);
}

/** Column widths within `room`: the widest columns give way first, none below 3. */
function fitColumns(natural: number[], room: number): number[] {
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 3) break;
    widths[widest]!--;
    total--;
  }
  return widths;
}
