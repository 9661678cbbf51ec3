// Loading a saved session: a missing one is "no session", any other failure says what it is.

import assert from "node:assert/strict";
import { loadSession } from "./journal.ts";

Deno.test("loadSession: a missing session is named as missing; an unreadable one is not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "journal-" });
  try {
    await assert.rejects(loadSession(dir, "gone"), /no session "gone"/);
    await Deno.mkdir(`${dir}/odd.jsonl`); // present, but cannot be read as a file
    await assert.rejects(loadSession(dir, "odd"), (err: Error) => {
      assert.doesNotMatch(err.message, /no session/);
      assert.match(err.message, /cannot read session "odd"/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
