// Drawing a reply as it streams: text as it comes, reasoning dimmed and then collapsed to
// one summary line (/reasoning shows it again), each tool call as one line with a short
// result under it. Collapsing erases the reasoning block by moving the cursor up over the
// rows it took; a block taller than the screen has scrolled away and is left as it is.

import type { LoopEvent } from "../core/agent/loop.ts";
import { type Style, truncate } from "./terminal/style.ts";

export interface Screen {
  write(text: string): void;
  columns(): number;
  rows(): number;
}

export class ReplyView {
  #screen: Screen;
  #style: Style;
  /** Column of the cursor on its current row (0 = at the start of a row). */
  #col = 0;
  #reasoning: { text: string; rows: number } | null = null;
  /** Every reasoning block of this reply, for /reasoning. */
  readonly reasoning: string[] = [];
  #sawText = false;

  constructor(screen: Screen, style: Style) {
    this.#screen = screen;
    this.#style = style;
  }

  onEvent(event: LoopEvent): void {
    switch (event.type) {
      case "reasoning":
        this.#reasoningDelta(event.text);
        break;
      case "text":
        this.#collapse();
        if (!this.#sawText && this.#col !== 0) this.#newline();
        this.#sawText = true;
        this.#flow(event.text, (t) => t);
        break;
      case "tool_start":
        this.#collapse();
        this.#ensureLineStart();
        this.#line(`${this.#style.cyan("⏺")} ${truncate(event.summary, this.#width() - 2)}`);
        break;
      case "tool_end":
        this.#collapse();
        this.#ensureLineStart();
        this.#line(this.#style.dim("  ⎿ ") + this.#resultLine(event.content, event.is_error));
        break;
      case "compacted":
        this.#collapse();
        this.#ensureLineStart();
        this.#line(
          this.#style.dim(`(history compacted: ${event.before} → ${event.after} messages)`),
        );
        break;
      default:
        break;
    }
  }

  /** Ends the reply: the last reasoning block collapses and the cursor is on a fresh row. */
  finish(): void {
    this.#collapse();
    this.#ensureLineStart();
  }

  /** A line of its own (notes, errors) between streamed parts. */
  note(text: string): void {
    this.#collapse();
    this.#ensureLineStart();
    this.#line(text);
  }

  #reasoningDelta(text: string): void {
    if (!this.#reasoning) {
      this.#ensureLineStart();
      this.#reasoning = { text: "", rows: 0 };
      this.#flowReasoning("✻ ");
    }
    this.#reasoning.text += text;
    this.#flowReasoning(text);
  }

  #flowReasoning(text: string): void {
    const before = this.#rowsWritten;
    this.#flow(text, this.#style.dim);
    this.#reasoning!.rows += this.#rowsWritten - before;
  }

  #rowsWritten = 0;

  /** Writes text, tracking the column so wrapped rows can be counted. */
  #flow(text: string, paint: (t: string) => string): void {
    const width = this.#width();
    for (const ch of text) {
      if (ch === "\n") {
        this.#rowsWritten++;
        this.#col = 0;
      } else if (ch === "\r") {
        continue;
      } else {
        if (this.#col >= width) {
          this.#rowsWritten++;
          this.#col = 0;
        }
        this.#col++;
      }
    }
    this.#screen.write(paint(text.replace(/\r/g, "")));
  }

  #collapse(): void {
    const block = this.#reasoning;
    if (!block) return;
    this.#reasoning = null;
    const text = block.text.trim();
    this.reasoning.push(text);
    const words = text === "" ? 0 : text.split(/\s+/).length;
    const summary = this.#style.dim(
      `✻ thought for ${words} word${words === 1 ? "" : "s"} (/reasoning shows it)`,
    );
    if (block.rows < this.#screen.rows() - 1) {
      // Back to the block's first row, erase to the end of the screen, write the summary.
      this.#screen.write(`\r${block.rows > 0 ? `\x1b[${block.rows}A` : ""}\x1b[J`);
      this.#col = 0;
      this.#line(summary);
    } else {
      this.#ensureLineStart();
      this.#line(summary);
    }
  }

  #resultLine(content: string, isError: boolean): string {
    const lines = content.split("\n").filter((l) => l.trim() !== "");
    const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
    // "  ⎿ " takes four columns; one more keeps the row from wrapping.
    const room = Math.max(8, this.#width() - 5 - more.length);
    const first = truncate((lines[0] ?? "(no output)").trim(), room);
    return (isError ? this.#style.red(first) : first) + this.#style.dim(more);
  }

  #ensureLineStart(): void {
    if (this.#col !== 0) this.#newline();
  }

  #newline(): void {
    this.#screen.write("\n");
    this.#rowsWritten++;
    this.#col = 0;
  }

  #line(text: string): void {
    this.#screen.write(`${text}\n`);
    this.#rowsWritten++;
    this.#col = 0;
  }

  #width(): number {
    return Math.max(20, this.#screen.columns());
  }
}
