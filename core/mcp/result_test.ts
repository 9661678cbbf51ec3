import assert from "node:assert/strict";
import { toOutcome } from "./result.ts";

Deno.test("text blocks join; resources, links and audio are described, never dropped silently", () => {
  const out = toOutcome({
    content: [
      { type: "text", text: "one" },
      { type: "resource_link", uri: "file:///a.txt", name: "a" },
      { type: "resource", resource: { uri: "file:///b.txt", text: "B body" } },
      { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "x/bin" } },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    ],
  });
  assert.deepEqual(out, {
    type: "result",
    content: [
      "one",
      "[resource link: file:///a.txt (a)]",
      "[resource file:///b.txt]",
      "B body",
      "[resource file:///c.bin: x/bin, 3 bytes, not shown]",
      "[audio audio/wav: not shown]",
    ].join("\n"),
  });
});

Deno.test("structured content shows when there is no text; isError is kept", () => {
  assert.deepEqual(toOutcome({ content: [], structuredContent: { a: 1 }, isError: true }), {
    type: "result",
    content: '{"a":1}',
    is_error: true,
  });
  assert.deepEqual(toOutcome({ content: [] }), {
    type: "result",
    content: "(the tool returned no content)",
  });
});

Deno.test("a result over the size cap is cut with a note; images over their cap are not attached", () => {
  const out = toOutcome({ content: [{ type: "text", text: "x".repeat(50) }] }, {
    chars: 20,
    imageChars: 8,
  });
  assert.equal(
    out.content,
    `${"x".repeat(20)}\n[… cut: 30 more characters; the result was over the 20-character cap]`,
  );
  const images = toOutcome({
    content: [
      { type: "image", data: "AAAAAAAA", mimeType: "image/png" },
      { type: "image", data: "BBBBBBBB", mimeType: "image/png" },
    ],
  }, { chars: 1000, imageChars: 8 });
  assert.ok(images.type === "result");
  assert.deepEqual(images.images, [{ media_type: "image/png", data: "AAAAAAAA" }]);
  assert.match(
    images.content,
    /\[image 1: image\/png, 6 bytes\]\n\[image image\/png, 6 bytes: not attached, over the size cap\]/,
  );
});
