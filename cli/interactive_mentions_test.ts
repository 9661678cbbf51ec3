// @file mentions: attached with their path, bounded, confined to the workspace; what is not a
// workspace file stays plain text.

import assert from "node:assert/strict";
import { attachMentions, MAX_FILE_BYTES } from "./interactive_mentions.ts";

async function withWorkspace(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mentions-" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("mentions: a workspace file is attached after the message with its path", async () => {
  await withWorkspace(async (dir) => {
    await Deno.writeTextFile(`${dir}/notes.txt`, "buy milk\n");
    const out = attachMentions("summarize @notes.txt, please", dir);
    assert.equal(
      out.text,
      'summarize @notes.txt, please\n\n<file path="notes.txt">\nbuy milk\n\n</file>',
    );
    assert.deepEqual(out.notes, ["attached @notes.txt (9 bytes)"]);
  });
});

Deno.test("mentions: a big file is cut at the bound and says so", async () => {
  await withWorkspace(async (dir) => {
    await Deno.writeTextFile(`${dir}/big.txt`, "x".repeat(MAX_FILE_BYTES + 10));
    const out = attachMentions("@big.txt", dir);
    assert.match(
      out.text,
      new RegExp(`\\[cut: the first ${MAX_FILE_BYTES} of ${MAX_FILE_BYTES + 10} bytes\\]`),
    );
    assert.ok(out.text.length < MAX_FILE_BYTES + 200);
  });
});

Deno.test("mentions: outside the workspace, binary, missing or e-mail: not attached", async () => {
  await withWorkspace(async (dir) => {
    await Deno.writeFile(`${dir}/image.bin`, new Uint8Array([1, 0, 2]));
    const message = "see @../../etc/passwd and @image.bin and @missing.txt, mail a@b.c";
    const out = attachMentions(message, dir);
    assert.equal(out.text, message);
    assert.deepEqual(out.notes, [
      "@../../etc/passwd not attached: path leaves the workspace",
      "@image.bin not attached: a binary file",
    ]);
  });
});
