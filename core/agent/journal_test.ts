// The session journal: entries reach the file in order through one open handle, a closed
// journal opens again on the next append, and a failed write is reported, never dropped.
// Loading a saved session: a missing one is "no session", any other failure says what it is.

import assert from "node:assert/strict";
import { Journal, loadSession } from "./journal.ts";

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

const meta = (id: string) => ({
  id,
  created_at: "2026-11-26T00:00:00.000Z",
  workdir: "/w",
  provider: "chat_completions",
  model: "m",
  mode: "auto",
});
const say = (text: string) => ({
  type: "message" as const,
  message: { role: "user" as const, parts: [{ type: "text" as const, text }] },
});

Deno.test("journal: entries land in order, private, and a closed journal opens again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "journal-" });
  try {
    const journal = await Journal.create(`${dir}/sessions`, meta("s1"));
    for (const text of ["one", "two", "three"]) journal.append(say(text));
    await journal.close();
    journal.append(say("four"));
    await journal.flush();
    const loaded = await loadSession(`${dir}/sessions`, "s1");
    assert.deepEqual(loaded.meta, meta("s1"));
    assert.deepEqual(
      loaded.messages.map((m) => m.parts[0]!.type === "text" ? m.parts[0]!.text : ""),
      ["one", "two", "three", "four"],
    );
    assert.equal((await Deno.stat(journal.path)).mode! & 0o777, 0o600);
    // A resumed journal appends to the same file.
    const again = Journal.reopen(`${dir}/sessions`, "s1");
    again.append(say("five"));
    await again.close();
    assert.equal((await loadSession(`${dir}/sessions`, "s1")).messages.length, 5);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("journal: a write that fails is reported by flush and close", async () => {
  const dir = await Deno.makeTempDir({ prefix: "journal-" });
  try {
    const journal = await Journal.create(`${dir}/sessions`, meta("s2"));
    await journal.flush();
    // The session file turned into a directory: the journal cannot open it to append.
    await journal.close();
    await Deno.remove(journal.path);
    await Deno.mkdir(journal.path);
    journal.append(say("lost?"));
    await assert.rejects(journal.flush());
    await assert.rejects(journal.close());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
