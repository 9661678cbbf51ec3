// The terminal markdown renderer over a table of the CommonMark cases users write: inline
// formatting inside list items (raw `**x**` under marked-terminal 7.3.1 with marked 18),
// nested and ordered lists, tables with alignment, code blocks, and wrapping at word
// boundaries at several widths. Plain style (NO_COLOR) so the layout is compared exactly;
// one colored case checks that the styles land on the right words.

import assert from "node:assert/strict";
import { makeMarkdownRenderer, visible, wrap } from "./markdown.ts";
import { makeStyle } from "./style.ts";

const plain = makeStyle(false);

const CASES: { name: string; markdown: string; width?: number; expected: string }[] = [
  {
    name: "inline code, bold and italics inside list items",
    markdown: "* `hello.py` — prints **Helo**\n* *italic* and ~~gone~~ text",
    expected: "• hello.py — prints Helo\n• italic and gone text\n",
  },
  {
    name: "nested lists, ordered inside unordered",
    markdown: "- top\n  1. first\n  2. second\n     - deep `x`\n- next",
    expected: "• top\n  1. first\n  2. second\n     • deep x\n• next\n",
  },
  {
    name: "an ordered list keeps its start number; task items show their box",
    markdown: "3. three\n4. four\n\n- [x] done\n- [ ] open",
    expected: "3. three\n4. four\n\n• [x] done\n• [ ] open\n",
  },
  {
    name: "a table keeps its column alignment",
    markdown:
      "| name | size | mid |\n| :--- | ---: | :-: |\n| alpha | 12 | a |\n| b | 12345 | bcd |",
    expected: [
      "┌───────┬───────┬─────┐",
      "│ name  │  size │ mid │",
      "├───────┼───────┼─────┤",
      "│ alpha │    12 │  a  │",
      "│ b     │ 12345 │ bcd │",
      "└───────┴───────┴─────┘",
      "",
    ].join("\n"),
  },
  {
    name: "a code block is indented and left as written",
    markdown: "Before:\n\n```ts\nconst a = 1;\n  if (a) go();\n```\n\nAfter.",
    expected: "Before:\n\n  const a = 1;\n    if (a) go();\n\nAfter.\n",
  },
  {
    name: "headings, quotes, links and rules",
    markdown: "# Title\n\n> quoted **words**\n\nSee [the docs](https://x.test/d).\n\n---",
    expected: "Title\n\n│ quoted words\n\nSee the docs (https://x.test/d).\n\n" + "─".repeat(40) +
      "\n",
  },
  {
    name: "a paragraph wraps at word boundaries (width 30)",
    width: 30,
    markdown: "Here is what I found in the folder after looking at every file.",
    expected: "Here is what I found in the\nfolder after looking at every\nfile.\n",
  },
  {
    name: "list items wrap under their text, not under the bullet (width 24)",
    width: 24,
    markdown: "- a list item long enough to wrap twice over here",
    expected: "• a list item long\n  enough to wrap twice\n  over here\n",
  },
  {
    name: "a table too wide for the width wraps its cells",
    width: 24,
    markdown: "| key | meaning |\n| --- | --- |\n| a | the first letter of it |",
    expected: [
      "┌─────┬────────────────┐",
      "│ key │ meaning        │",
      "├─────┼────────────────┤",
      "│ a   │ the first      │",
      "│     │ letter of it   │",
      "└─────┴────────────────┘",
      "",
    ].join("\n"),
  },
  {
    name: "wide characters count two columns in a table",
    markdown: "| name | n |\n| --- | --: |\n| 你好 | 1 |\n| ab | 22 |",
    expected: [
      "┌──────┬────┐",
      "│ name │  n │",
      "├──────┼────┤",
      "│ 你好 │  1 │",
      "│ ab   │ 22 │",
      "└──────┴────┘",
      "",
    ].join("\n"),
  },
  {
    name: "HTML entities in text and code come out as characters",
    markdown: "Use `a < b && c` and \"quotes\" & 'apostrophes'.",
    expected: "Use a < b && c and \"quotes\" & 'apostrophes'.\n",
  },
];

for (const c of CASES) {
  Deno.test(`markdown: ${c.name}`, () => {
    const out = makeMarkdownRenderer(c.width ?? 80, plain).render(c.markdown);
    assert.equal(out, c.expected);
    for (const line of out.split("\n")) assert.ok(visible(line) <= (c.width ?? 80), line);
  });
}

Deno.test("markdown: styles land on the words they belong to (colors on)", () => {
  const out = makeMarkdownRenderer(80, makeStyle(true)).render("* `code` and **bold** and *it*");
  const esc = "\x1b";
  assert.ok(out.includes(`${esc}[33mcode${esc}[39m`), out);
  assert.ok(out.includes(`${esc}[1mbold${esc}[22m`), out);
  assert.ok(out.includes(`${esc}[3mit${esc}[23m`), out);
  assert.doesNotMatch(out, /\*\*|`/);
});

Deno.test("wrap: every width from 9 to 60 keeps words whole and lines within the width", () => {
  const text = "The quick brown fox jumps over the lazy dog near the riverbank today";
  const words = text.split(" ");
  for (let width = 9; width <= 60; width++) {
    const lines = wrap(text, width);
    for (const line of lines) assert.ok(visible(line) <= width, `${width}: ${line}`);
    assert.deepEqual(lines.join(" ").split(" "), words, `width ${width}`);
  }
});
