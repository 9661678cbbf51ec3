// Markdown for the terminal: marked (the parser the dashboard uses too) with marked-terminal's
// renderer, which lays out headings, emphasis, lists and tables and highlights code blocks
// with cli-highlight. Heavy (highlight.js), so it is reached only through
// interactive_markdown.ts's dynamic import, never at start-up. Colors come from the session's
// Style, so NO_COLOR and the rest of the screen agree.

import { Marked, type Token } from "marked";
import { markedTerminal } from "marked-terminal";
import type { Style } from "./style.ts";

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
  const plain = (t: string) => t;
  const heading = (t: string) => style.bold(style.cyan(t));
  marked.use(markedTerminal({
    width,
    reflowText: false,
    tab: 2,
    showSectionPrefix: false,
    firstHeading: heading,
    heading,
    strong: style.bold,
    em: style.italic,
    codespan: style.yellow,
    code: style.yellow,
    blockquote: (t: string) => style.dim(style.italic(t)),
    del: style.dim,
    link: style.cyan,
    href: style.cyan,
    hr: style.dim,
    html: style.dim,
    paragraph: plain,
    listitem: plain,
    table: plain,
    text: plain,
  }, { ignoreIllegals: true }));
  return {
    render(markdown: string): string {
      const out = marked.parse(markdown, { async: false });
      return `${out.replace(/\s+$/, "")}\n`;
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
