// Colors for the terminal, off when NO_COLOR is set (https://no-color.org) or the output is
// not a terminal. Only SGR codes live here; cursor movement is in reply_view.ts.

import type { Env } from "../../core/ports.ts";

export interface Style {
  readonly colors: boolean;
  dim(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** NO_COLOR with any non-empty value turns colors off. */
export function colorsWanted(env: Env, isTerminal: boolean): boolean {
  const noColor = env.get("NO_COLOR");
  return isTerminal && (noColor === undefined || noColor === "");
}

export function makeStyle(colors: boolean): Style {
  const sgr = (open: number, close: number) => (text: string) =>
    colors && text !== "" ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    colors,
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    italic: sgr(3, 23),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

/** Cuts plain text to `width` columns with an ellipsis. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join("") : `${chars.slice(0, width - 1).join("")}…`;
}
