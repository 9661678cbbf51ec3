// Loads the markdown renderer (cli/terminal/markdown.ts) for replies. Its library pulls in
// highlight.js, so it is imported dynamically (see cli/main.ts) the first time a reply has
// text, and shared after.
// Without colors (NO_COLOR) replies are not rendered at all: the model's text is shown as it
// came, which is already plain, readable markdown.

import type { Style } from "./terminal/style.ts";
import type { MarkdownRenderer } from "./terminal/markdown.ts";

type MarkdownModule = typeof import("./terminal/markdown.ts");

let loading: Promise<MarkdownModule> | undefined;

/** A loader for ReplyView, or undefined when replies stay plain text. */
export function markdownLoader(
  style: Style,
  columns: () => number,
): (() => Promise<MarkdownRenderer>) | undefined {
  if (!style.colors) return undefined;
  return async () => {
    loading ??= import("./terminal/markdown.ts");
    const module = await loading;
    return module.makeMarkdownRenderer(Math.max(20, columns() - 1), style);
  };
}
