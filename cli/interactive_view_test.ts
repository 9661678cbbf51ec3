import assert from "node:assert/strict";
import { ReplyView, wrapWords } from "./interactive_view.ts";
import { makeStyle } from "./terminal/style.ts";

function screen(columns = 20, rows = 10) {
  const out: string[] = [];
  return { out, write: (t: string) => void out.push(t), columns: () => columns, rows: () => rows };
}

const call = { type: "tool_call" as const, id: "1", name: "view", input: {} };

Deno.test("reasoning streams dimmed, then collapses by moving up over its wrapped rows", async () => {
  const s = screen(20, 10);
  const view = new ReplyView(s, makeStyle(false));
  // "✻ " + 30 characters: 32 columns on a 20-column screen = 2 rows, so 1 row up.
  view.onEvent({ type: "reasoning", text: "abcdefghij klmnopqrst uvwxyz12" });
  view.onEvent({ type: "text", text: "Answer" });
  await view.finish();
  const all = s.out.join("");
  assert.ok(all.startsWith("✻ abcdefghij klmnopqrst uvwxyz12"));
  assert.ok(
    all.includes("\r\x1b[1A\x1b[J✻ thought for 3 words (/reasoning shows it)\nAnswer\n"),
    JSON.stringify(all),
  );
  assert.deepEqual(view.reasoning, ["abcdefghij klmnopqrst uvwxyz12"]);
});

Deno.test("a reasoning block taller than the screen is not erased, only summarized", async () => {
  const s = screen(20, 4);
  const view = new ReplyView(s, makeStyle(false));
  view.onEvent({ type: "reasoning", text: "line\n".repeat(6) });
  await view.finish();
  const all = s.out.join("");
  assert.ok(!all.includes("\x1b["), JSON.stringify(all));
  assert.ok(all.endsWith("✻ thought for 6 words (/reasoning shows it)\n"));
});

Deno.test("tool calls are one line each with a short result; errors are marked", async () => {
  const s = screen(40);
  const view = new ReplyView(s, makeStyle(true));
  view.onEvent({ type: "text", text: "Looking" });
  view.onEvent({ type: "tool_start", call, summary: "view src/a_very_long_file_name_indeed.ts" });
  view.onEvent({
    type: "tool_end",
    call,
    content: "line one\nline two\nline three",
    is_error: false,
  });
  view.onEvent({ type: "tool_end", call, content: "No such file", is_error: true });
  await view.finish();
  const all = s.out.join("");
  assert.ok(all.includes("Looking\n\x1b[36m⏺\x1b[39m view src/a_very_long_file_name_indeed…\n"));
  assert.ok(all.includes("⎿ \x1b[22mline one\x1b[2m (+2 lines · ctrl+o expands)"));
  assert.ok(all.includes("\x1b[31mNo such file\x1b[39m"));
});

Deno.test("without colors nothing but text and cursor moves is written", async () => {
  const s = screen();
  const view = new ReplyView(s, makeStyle(false));
  view.onEvent({ type: "tool_start", call, summary: "view x" });
  view.onEvent({ type: "tool_end", call, content: "", is_error: false });
  view.onEvent({ type: "compacted", before: 40, after: 3 });
  await view.finish();
  assert.equal(s.out.join(""), "⏺ view x\n  ⎿ (no output)\n(history compacted: 40 → 3 messages)\n");
});

Deno.test("wrapWords: streamed text breaks before a word that would cross the edge", () => {
  assert.equal(wrapWords("Here is what", 55, 60), "Here \nis what");
  assert.equal(wrapWords("one two", 0, 60), "one two");
  // A space that would start the next row is dropped with the break.
  assert.equal(wrapWords(" next", 60, 60), "\nnext");
  for (let width = 9; width <= 40; width++) {
    const text = "The quick brown fox jumps over the lazy dog near the river";
    const lines = wrapWords(text, 0, width).split("\n");
    for (const line of lines) assert.ok(line.length <= width, `${width}: ${line}`);
    assert.equal(lines.map((l) => l.trim()).join(" "), text);
  }
});
