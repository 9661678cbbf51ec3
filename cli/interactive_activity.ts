// The activity line: one spinner row under the reply while nothing else is being drawn —
// from the moment a request is sent until its first token, while a tool call's arguments
// stream and while a tool runs. It says what is going on, for how long, the reply's tokens so
// far and how to interrupt, and redraws every 100 ms so the screen is never still for long.
// The row is the one the next output goes to: the view clears it before writing anything.
// While reply text streams (showBelow) the line sits on the row under the text and the
// cursor goes back to where the text goes on, so the elapsed time, the tokens and the queued
// type-ahead stay in view for the whole reply.

import type { Clock } from "../core/ports.ts";
import { type Style, truncate } from "./terminal/style.ts";
import type { Screen } from "./interactive_types.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Redraw period; well under the 250 ms a screen may stay still while the agent works. */
export const ACTIVITY_TICK_MS = 100;

export class ActivityLine {
  #screen: Screen;
  #style: Style;
  #clock: Clock;
  #label: string | null = null;
  #since = 0;
  #frame = 0;
  #drawn = false;
  #ticker: AbortController | null = null;
  /** Set while text streams: the text's column, the line being drawn on the row below. */
  #textColumn: (() => number) | null = null;
  /** Tokens of this reply so far, for the line (the view keeps it current). */
  tokens = 0;
  /** Messages typed ahead and waiting to be sent, for the line. */
  queued = 0;
  /** What is being typed ahead (no Enter yet): raw mode echoes nothing, so the line shows it. */
  typed = "";

  constructor(screen: Screen, style: Style, clock: Clock) {
    this.#screen = screen;
    this.#style = style;
    this.#clock = clock;
  }

  get active(): boolean {
    return this.#label !== null;
  }

  /** Shows (or relabels) the line; the elapsed time restarts only when the label changes. */
  show(label: string): void {
    this.clear();
    this.#textColumn = null;
    this.#place(label);
  }

  /** Shows the line under streaming text; `column` says where the text's cursor is. */
  showBelow(label: string, column: () => number): void {
    this.clear();
    this.#textColumn = column;
    this.#place(label);
  }

  #place(label: string): void {
    if (this.#label !== label) this.#since = this.#clock.now().getTime();
    this.#label = label;
    this.draw();
    if (!this.#ticker) this.#tick();
  }

  /** Stops the line and erases it. */
  stop(): void {
    this.#label = null;
    this.#ticker?.abort();
    this.#ticker = null;
    this.clear();
  }

  /** Erases the row (before other output); draw() puts it back. */
  clear(): void {
    if (!this.#drawn) return;
    // Below the text: erase from the text's cursor down, which leaves the text as it is.
    this.#screen.write(this.#textColumn ? "\x1b[J" : "\r\x1b[2K");
    this.#drawn = false;
  }

  draw(): void {
    if (this.#label === null) return;
    const seconds = (this.#clock.now().getTime() - this.#since) / 1000;
    const parts = [this.#label, `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)}s`];
    if (this.tokens > 0) parts.push(`${this.tokens} tokens`);
    if (this.queued > 0) parts.push(`${this.queued} queued`);
    parts.push("esc to interrupt");
    if (this.typed !== "") parts.push(`› ${this.typed}`);
    const frame = FRAMES[this.#frame % FRAMES.length]!;
    const text = truncate(
      `${frame} ${parts.join(" · ")}`,
      Math.max(10, this.#screen.columns() - 1),
    );
    const painted = `${this.#style.cyan(frame)}${this.#style.dim(text.slice(1))}`;
    if (this.#textColumn) {
      const col = this.#textColumn();
      // At the right edge the terminal waits to wrap; moving away would lose that. Skip.
      if (col >= this.#screen.columns()) return;
      const back = `\x1b[1A\r${col > 0 ? `\x1b[${col}C` : ""}`;
      this.#screen.write(`\n\r\x1b[2K${painted}${back}`);
    } else {
      this.#screen.write(`\r\x1b[2K${painted}`);
    }
    this.#drawn = true;
  }

  async #tick(): Promise<void> {
    const ticker = new AbortController();
    this.#ticker = ticker;
    try {
      while (!ticker.signal.aborted) {
        await this.#clock.sleep(ACTIVITY_TICK_MS, ticker.signal);
        this.#frame++;
        this.draw();
      }
    } catch (err) {
      // stop() aborts the sleep; anything else is a real failure.
      if (!ticker.signal.aborted) throw err;
    }
  }
}
