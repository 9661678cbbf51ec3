// The project history file: one entry per message, bounded, private, and a damaged line costs
// only that line.

import assert from "node:assert/strict";
import { InputHistory, MAX_ENTRIES } from "./input_history.ts";

async function withHome(fn: (home: string) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "input-history-" });
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("history: multi-line messages are one entry each; another workdir has its own", async () => {
  await withHome(async (home) => {
    const h = new InputHistory(home, "/work/a");
    await h.add("one\ntwo");
    await h.add("three");
    await h.add("three"); // a repeat of the last is not kept twice
    assert.deepEqual(await new InputHistory(home, "/work/a").entries(), ["one\ntwo", "three"]);
    assert.deepEqual(await new InputHistory(home, "/work/b").entries(), []);
    assert.equal(Deno.statSync(h.path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(`${home}/history`).mode! & 0o777, 0o700);
  });
});

Deno.test("history: past the bound only the newest entries stay, in the file too", async () => {
  await withHome(async (home) => {
    const h = new InputHistory(home, "/w");
    for (let i = 0; i < MAX_ENTRIES + 5; i++) await h.add(`m${i}`);
    const again = await new InputHistory(home, "/w").entries();
    assert.equal(again.length, MAX_ENTRIES);
    assert.equal(again[0], "m5");
    assert.equal(again.at(-1), `m${MAX_ENTRIES + 4}`);
    assert.equal(Deno.statSync(h.path).mode! & 0o777, 0o600);
  });
});

Deno.test("history: a torn or hand-edited line is skipped, the rest is kept", async () => {
  await withHome(async (home) => {
    const h = new InputHistory(home, "/w");
    await h.add("good one");
    await Deno.writeTextFile(h.path, '{"not a string":1}\n"half', { append: true });
    const loaded = new InputHistory(home, "/w");
    assert.deepEqual(await loaded.entries(), ["good one"]);
    await loaded.add("after");
    assert.deepEqual(await new InputHistory(home, "/w").entries(), ["good one", "after"]);
  });
});
