// format.ts makes no Intl object at import: the first one loads ICU's locale data, several MiB
// of resident memory the outpost would carry from start-up (issue 16). Counts still group.

import assert from "node:assert/strict";

Deno.test("importing format.ts builds no Intl formatter; count() builds one on first use", async () => {
  const Original = Intl.NumberFormat;
  let made = 0;
  // A counting stand-in for the constructor, restored after the test.
  const Counting = function (...args: ConstructorParameters<typeof Intl.NumberFormat>) {
    made++;
    return new Original(...args);
  } as unknown as typeof Intl.NumberFormat;
  Intl.NumberFormat = Counting;
  try {
    // A query makes a fresh module instance, so its top level runs under the stand-in.
    const format: typeof import("./format.ts") = await import(`./format.ts?fresh=${Date.now()}`);
    assert.equal(made, 0, "format.ts built an Intl.NumberFormat at import");
    assert.equal(format.count(12345), "12,345");
    assert.equal(format.count(7), "7");
    assert.equal(format.count(null), "—");
    assert.equal(made, 1, "one formatter, reused");
  } finally {
    Intl.NumberFormat = Original;
  }
});
