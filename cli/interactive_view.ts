// Drawing a reply as it streams: text as it comes, reasoning dimmed and then collapsed to
// one summary line (/reasoning shows it again), each tool call as one line with its result
// collapsed to its first line (/expand or ctrl+o shows it whole), and the activity line
// (interactive_activity.ts) whenever the reply is waiting on the model or a tool.
//
// Markdown: text streams raw so the first token shows at once; as soon as a markdown block is
// complete (another block has begun after it) its raw rows are erased and the block is drawn
// rendered (interactive_markdown.ts); the last block is rendered when the reply ends, or
// before a tool call. Erasing moves the cursor up over the rows the raw text took, as the
// reasoning collapse does; a block taller than the screen has scrolled away and stays raw.

import { charWidth, textWidth } from "./terminal/text_width.ts";
import type { LoopEvent } from "../core/agent/loop.ts";
import type { Clock } from "../core/ports.ts";
import { type Style, truncate } from "./terminal/style.ts";
import type { MarkdownRenderer } from "./terminal/markdown.ts";
import type { Screen, ToolOutput } from "./interactive_types.ts";
import { ActivityLine } from "./interactive_activity.ts";

export type { Screen } from "./interactive_types.ts";

export interface ReplyViewOptions {
  /** Shows the activity line (spinner, elapsed time) on this clock. */
  clock?: Clock;
  /** Renders markdown blocks; without it text stays as the model wrote it. */
  markdown?: () => Promise<MarkdownRenderer>;
}

export class ReplyView {
  #screen: Screen;
  #style: Style;
  /** Column of the cursor on its current row (0 = at the start of a row). */
  #col = 0;
  #rowsWritten = 0;
  #reasoning: { text: string; rows: number } | null = null;
  /** Every reasoning block of this reply, for /reasoning. */
  readonly reasoning: string[] = [];
  /** Every tool call of this reply with its whole output, for /expand. */
  readonly tools: ToolOutput[] = [];
  #sawText = false;
  #activity: ActivityLine | null;
  #outputTokens = 0;
  #streamedChars = 0;
  #loadMarkdown: (() => Promise<MarkdownRenderer>) | undefined;
  #markdownLoading: Promise<MarkdownRenderer | null> | null = null;
  #markdown: MarkdownRenderer | null = null;
  /** Text written raw and not rendered yet, and the row count when it began. */
  #text: { raw: string; startRows: number } | null = null;
  #renderedBlocks = 0;
  #pendingSummary: string | undefined;

  constructor(screen: Screen, style: Style, opts: ReplyViewOptions = {}) {
    this.#screen = screen;
    this.#style = style;
    this.#activity = opts.clock ? new ActivityLine(screen, style, opts.clock) : null;
    this.#loadMarkdown = opts.markdown;
  }

  /** A request is on its way: the activity line runs until the first token. */
  begin(): void {
    this.#showActivity("waiting for the model");
  }

  /** The word being streamed on the current row (#flowWords may move it to the next). */
  #openWord: { start: number; text: string } | null = null;
  /** Text of the model turn still streaming (what an interrupt would lose), "" after done. */
  unfinishedText = "";

  /** Messages typed ahead, shown on the activity line. */
  set queued(n: number) {
    if (this.#activity) this.#activity.queued = n;
  }

  /** The type-ahead line not yet sent, shown on the activity line. */
  set typed(text: string) {
    if (!this.#activity) return;
    this.#activity.typed = text;
    if (this.#activity.active) this.#activity.draw();
  }

  onEvent(event: LoopEvent): void {
    switch (event.type) {
      case "reasoning":
        this.#activity?.stop();
        this.#endText();
        this.#countStreamed(event.text);
        this.#reasoningDelta(event.text);
        break;
      case "text":
        this.#activity?.clear();
        this.#collapse();
        if (!this.#sawText && this.#col !== 0) this.#newline();
        this.#sawText = true;
        this.#countStreamed(event.text);
        this.unfinishedText += event.text;
        this.#textDelta(event.text);
        if (this.#activity) {
          this.#activity.tokens = this.#outputTokens + Math.round(this.#streamedChars / 4);
          this.#activity.showBelow("responding", () => this.#col);
        }
        break;
      case "tool_call":
        this.#endText();
        this.#collapse();
        this.#ensureLineStart();
        this.#showActivity(`preparing ${event.name}`);
        break;
      case "tool_start":
        this.#endText();
        this.#collapse();
        this.#ensureLineStart();
        this.#pendingSummary = event.summary;
        this.#line(`${this.#style.cyan("⏺")} ${truncate(event.summary, this.#width() - 2)}`);
        this.#showActivity(`running ${event.call.name}`);
        break;
      case "tool_end":
        this.#endText();
        this.#collapse();
        this.#ensureLineStart();
        this.tools.push({
          summary: this.#pendingSummary ?? event.call.name,
          content: event.content,
          is_error: event.is_error,
        });
        this.#pendingSummary = undefined;
        this.#line(
          this.#style.dim("  ⎿ ") +
            this.#resultLine(event.content, event.is_error, event.call.name),
        );
        this.#showActivity("waiting for the model");
        break;
      case "compacted":
        this.#endText();
        this.#collapse();
        this.#ensureLineStart();
        this.#line(
          this.#style.dim(`(history compacted: ${event.before} → ${event.after} messages)`),
        );
        break;
      case "done":
        this.unfinishedText = "";
        this.#outputTokens += event.usage.output_tokens;
        this.#streamedChars = 0;
        break;
      default:
        break;
    }
  }

  /** Stops the activity line (a prompt is about to open). */
  pause(): void {
    this.#activity?.stop();
  }

  /**
   * Ends the reply (or the part of it before a question): the activity line stops, the last
   * markdown block is rendered, reasoning collapses and the cursor is on a fresh row.
   */
  async finish(): Promise<void> {
    this.#activity?.stop();
    if (this.#text && this.#loadMarkdown) await this.#ensureMarkdown();
    this.#endText();
    this.#collapse();
    this.#ensureLineStart();
  }

  /** A line of its own (notes, errors) between streamed parts. */
  note(text: string): void {
    this.#endText();
    this.#collapse();
    this.#ensureLineStart();
    this.#line(text);
  }

  #showActivity(label: string): void {
    if (!this.#activity || this.#col !== 0) return;
    this.#activity.tokens = this.#outputTokens + Math.round(this.#streamedChars / 4);
    this.#activity.show(label);
  }

  #countStreamed(text: string): void {
    this.#streamedChars += text.length;
  }

  #textDelta(text: string): void {
    if (!this.#loadMarkdown) {
      this.#flowWords(text);
      return;
    }
    this.#text ??= { raw: "", startRows: this.#rowsWritten };
    this.#text.raw += text;
    this.#flowWords(text);
    if (!this.#markdown) {
      // Loaded on the first text, not before: the first token is never held up by it.
      void this.#ensureMarkdown();
    } else if (text.includes("\n")) {
      this.#renderBlocks(false);
    }
  }

  /** Renders the text written raw so far (all of it), when the renderer is there. */
  #endText(): void {
    this.#openWord = null;
    if (this.#text && this.#markdown) this.#renderBlocks(true);
    this.#text = null;
  }

  async #ensureMarkdown(): Promise<void> {
    if (!this.#loadMarkdown) return;
    this.#markdownLoading ??= this.#loadMarkdown().then(
      (renderer) => this.#markdown = renderer,
      (err) => {
        // Replies stay readable as raw text; say once why they are not rendered.
        this.#loadMarkdown = undefined;
        this.note(this.#style.yellow(`markdown rendering is off: ${String(err)}`));
        return null;
      },
    );
    await this.#markdownLoading;
  }

  /** Swaps complete blocks (or, with `all`, the whole raw text) for their rendering. */
  #renderBlocks(all: boolean): void {
    const block = this.#text;
    const md = this.#markdown;
    if (!block || !md) return;
    const length = all ? block.raw.length : md.completeLength(block.raw);
    if (length === 0 || block.raw.slice(0, length).trim() === "") return;
    const done = block.raw.slice(0, length);
    const rest = block.raw.slice(length);
    const rows = this.#rowsWritten - block.startRows;
    if (rows >= this.#screen.rows() - 1) {
      // Scrolled out of reach: the raw text stays; the rest goes on from where it is.
      this.#text = { raw: rest, startRows: this.#rowsWritten - rowsOf(rest, this.#width()) };
      return;
    }
    this.#screen.write(`\r${rows > 0 ? `\x1b[${rows}A` : ""}\x1b[J`);
    this.#col = 0;
    this.#openWord = null; // `rest` is written again below
    const gap = this.#renderedBlocks > 0 ? "\n" : "";
    this.#screen.write(gap + md.render(done));
    this.#renderedBlocks++;
    this.#rowsWritten++; // only row differences within one raw span matter
    this.#text = { raw: rest, startRows: this.#rowsWritten };
    if (rest !== "") this.#flowWords(rest);
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

  /** Writes text, tracking the column so wrapped rows can be counted. */
  /**
   * Streamed text, wrapped at word boundaries. Each piece shows at once; a word that grows
   * past the right edge over several pieces ("Here i" + "s what") is taken back from its row
   * and written again at the start of the next one, so no word is ever split.
   */
  #flowWords(text: string): void {
    const width = this.#width();
    for (const part of text.split(/( |\n)/)) {
      if (part === "") continue;
      if (part === " " || part === "\n") {
        this.#openWord = null;
        this.#flow(wrapWords(part, this.#col, width), (t) => t);
        continue;
      }
      const open = this.#openWord;
      const length = textWidth(part);
      if (open) {
        const whole = open.text + part;
        const total = textWidth(whole);
        if (open.start + total <= width) {
          open.text = whole;
          this.#flow(part, (t) => t);
        } else if (open.start > 0 && total <= width) {
          // Back to where the word began on this row, erase it, and start the next row with it.
          this.#screen.write(`\x1b[${textWidth(open.text)}D\x1b[K`);
          this.#col = open.start;
          this.#flow(`\n${whole}`, (t) => t);
          this.#openWord = { start: 0, text: whole };
        } else {
          this.#flow(part, (t) => t);
          this.#openWord = null; // longer than a row: the terminal wraps it
        }
        continue;
      }
      const start = this.#col > 0 && this.#col + length > width && length <= width ? 0 : this.#col;
      this.#flow(start === 0 && this.#col > 0 ? `\n${part}` : part, (t) => t);
      this.#openWord = start + length <= width ? { start, text: part } : null;
    }
  }

  #flow(text: string, paint: (t: string) => string): void {
    const moved = advance(text, this.#col, this.#width());
    this.#rowsWritten += moved.rows;
    this.#col = moved.col;
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

  #resultLine(content: string, isError: boolean, tool: string): string {
    let lines = content.split("\n").filter((l) => l.trim() !== "");
    // A shell call that went well is summed up by what it printed, not by "exit code 0".
    if (tool === "shell" && !isError && lines[0] === "exit code 0" && lines.length > 1) {
      lines = lines.slice(1);
    }
    const more = lines.length > 1 ? ` (+${lines.length - 1} lines · ctrl+o expands)` : "";
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
    this.#activity?.clear();
    this.#screen.write(`${text}\n`);
    this.#rowsWritten++;
    this.#col = 0;
  }

  #width(): number {
    return Math.max(20, this.#screen.columns());
  }
}

/** Rows added and the column reached by writing plain `text` from column `col`. */
/** `text` with a line break before each word that would cross the right edge from `col`. */
export function wrapWords(text: string, col: number, width: number): string {
  let out = "";
  for (const part of text.split(/( |\n)/)) {
    if (part === "") continue;
    if (part === "\n") {
      out += part;
      col = 0;
      continue;
    }
    const length = textWidth(part);
    if (part === " ") {
      if (col >= width) continue; // a space at the edge would start the next row
    } else if (col > 0 && col + length > width && length <= width) {
      out += "\n";
      col = 0;
    }
    out += part;
    col = advance(part, col, width).col;
  }
  return out;
}

function advance(text: string, col: number, width: number): { rows: number; col: number } {
  let rows = 0;
  for (const ch of text) {
    if (ch === "\n") {
      rows++;
      col = 0;
    } else if (ch !== "\r") {
      const w = charWidth(ch.codePointAt(0)!);
      if (w === 0) continue;
      if (col + w > width) {
        rows++;
        col = 0;
      }
      col += w;
    }
  }
  return { rows, col };
}

/** Rows `text` spans after its start when written from column 0. */
function rowsOf(text: string, width: number): number {
  return advance(text, 0, width).rows;
}
