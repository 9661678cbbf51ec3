// Draws the message box: the prompt, the text on as many rows as it needs (wrapped at the
// terminal's width, each line after the first behind the continuation mark), the footer
// (completion choices, history search) and the cursor where the editor has it. Each draw
// moves up to the box's first row, clears to the end of the screen and writes it again, so a
// box that grows or shrinks never leaves stale rows.

import { textWidth } from "./text_width.ts";

export interface EditorFrame {
  prompt: string;
  continuation: string;
  text: string;
  cursor: number;
  footer: string[];
}

export class EditorView {
  /** Rows between the box's first row and the terminal's cursor, as last drawn. */
  #cursorRow = 0;
  #last: EditorFrame | undefined;
  #lastCols = 0;
  readonly #write: (s: string) => void;
  readonly #columns: () => number;

  constructor(write: (s: string) => void, columns: () => number) {
    this.#write = write;
    this.#columns = columns;
  }

  draw(frame: EditorFrame): void {
    const cols = Math.max(10, this.#columns());
    // The width changed since the last frame (a resize, whether its signal came yet or not):
    // the terminal reflowed that frame's rows (tmux, VTE, kitty and iTerm2 do), so the cursor
    // is where the last frame's cursor falls at the new width.
    if (this.#last && cols !== this.#lastCols) this.#cursorRow = cursorAt(this.#last, cols).row;
    this.#last = frame;
    this.#lastCols = cols;
    const out: string[] = [];
    if (this.#cursorRow > 0) out.push(`\x1b[${this.#cursorRow}A`);
    out.push("\r\x1b[J");
    const lines = frame.text.split("\n");
    let row = 0;
    let cursorRow = 0;
    let cursorCol = 0;
    let offset = 0;
    lines.forEach((line, j) => {
      const prefix = j === 0 ? frame.prompt : frame.continuation;
      const prefixWidth = visibleWidth(prefix);
      if (j > 0) out.push("\r\n");
      out.push(prefix, line);
      const cells = prefixWidth + textWidth(line);
      // A row filled to the last column leaves the terminal waiting to wrap; a space and a
      // backspace make the wrap happen, so every line takes floor(cells / cols) + 1 rows.
      if (cells > 0 && cells % cols === 0) out.push(" \b");
      if (frame.cursor >= offset && frame.cursor <= offset + line.length) {
        const cell = prefixWidth + textWidth(line.slice(0, frame.cursor - offset));
        cursorRow = row + Math.floor(cell / cols);
        cursorCol = cell % cols;
      }
      row += Math.floor(cells / cols) + 1;
      offset += line.length + 1;
    });
    for (const f of frame.footer) out.push("\r\n", clip(f, cols - 1));
    const lastRow = row - 1 + frame.footer.length;
    const up = lastRow - cursorRow;
    if (up > 0) out.push(`\x1b[${up}A`);
    out.push("\r");
    if (cursorCol > 0) out.push(`\x1b[${cursorCol}C`);
    this.#cursorRow = cursorRow;
    this.#write(out.join(""));
  }

  /** Draws the final frame with the cursor after the text and leaves the box behind. */
  finish(frame: EditorFrame): void {
    this.draw({ ...frame, cursor: frame.text.length, footer: [] });
    this.#write("\r\n");
    this.#cursorRow = 0;
    this.#last = undefined;
  }
}

/** Where the cursor of `frame` is, in rows from the box's top, at `cols` columns. */
function cursorAt(frame: EditorFrame, cols: number): { row: number; col: number } {
  let row = 0;
  let offset = 0;
  for (const [j, line] of frame.text.split("\n").entries()) {
    const prefixWidth = visibleWidth(j === 0 ? frame.prompt : frame.continuation);
    const cells = prefixWidth + textWidth(line);
    if (frame.cursor >= offset && frame.cursor <= offset + line.length) {
      const cell = prefixWidth + textWidth(line.slice(0, frame.cursor - offset));
      return { row: row + Math.floor(cell / cols), col: cell % cols };
    }
    row += Math.floor(cells / cols) + 1;
    offset += line.length + 1;
  }
  return { row: 0, col: 0 };
}

function visibleWidth(s: string): number {
  // deno-lint-ignore no-control-regex
  return textWidth(s.replace(/\x1b\[[0-9;]*m/g, ""));
}

function clip(s: string, width: number): string {
  const chars = [...s];
  return chars.length <= width ? s : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}
