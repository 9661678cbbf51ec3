// The run log's session line and bounded reads: a well-formed id is taken from the first
// session line, a hostile one (a path, a control character) never; a read is capped at its
// bytes from the head or the tail, colour codes removed; a symlink is not followed.

import assert from "node:assert/strict";
import {
  isProtocolLine,
  progressFromLog,
  progressLine,
  readRunLog,
  sessionIdFromLog,
  sessionLine,
} from "./run_log.ts";

Deno.test("sessionIdFromLog takes the first well-formed session line", () => {
  assert.equal(sessionIdFromLog(sessionLine("20260302-091500-abc123")), "20260302-091500-abc123");
  assert.equal(
    sessionIdFromLog("agent: warning: x\nagent: session s-1\nagent: session s-2\n"),
    "s-1",
  );
  assert.equal(sessionIdFromLog("nothing here\n"), null);
  for (const bad of ["../../etc/passwd", "a/b", ".hidden", "", "x\u0007y", "a".repeat(200)]) {
    assert.equal(sessionIdFromLog(`agent: session ${bad}\n`), null, bad);
  }
  assert.equal(sessionIdFromLog("agent: session ../x\nagent: session ok-1\n"), "ok-1");
});

Deno.test("readRunLog reads at most its bytes, from the head or the tail, without colours", async () => {
  const dir = await Deno.makeTempDir({ prefix: "run_log_" });
  try {
    const path = `${dir}/run.log`;
    await Deno.writeTextFile(path, `${"a".repeat(100)}\x1b[31mred\x1b[0m${"z".repeat(100)}`);
    const head = (await readRunLog(path, 50, "head"))!;
    assert.equal(head.text, "a".repeat(50));
    assert.equal(head.cut, true);
    const tail = (await readRunLog(path, 60, "tail"))!;
    assert.equal(tail.text, "z".repeat(60));
    const all = (await readRunLog(path, 10_000, "head"))!;
    assert.equal(all.text, `${"a".repeat(100)}red${"z".repeat(100)}`);
    assert.equal(all.cut, false);
    assert.equal(await readRunLog(`${dir}/absent.log`, 10, "head"), null);
    await Deno.symlink(path, `${dir}/link.log`);
    assert.equal(await readRunLog(`${dir}/link.log`, 10, "head"), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("progress lines round-trip: the current tool, the token sums, and which lines are ours", () => {
  const log = [
    sessionLine("s-1"),
    progressLine({
      kind: "tokens",
      totals: { input: 10, output: 2, cacheRead: 30, cacheWrite: 4 },
    }),
    progressLine({ kind: "tool_start", name: "shell" }),
    progressLine({ kind: "tool_end" }),
    progressLine({ kind: "tool_start", name: "view" }),
  ].join("");
  assert.deepEqual(progressFromLog(log), { tool: "view", tokens: 46 });
  assert.deepEqual(progressFromLog(`${log}agent: tool-done\n`), { tool: null, tokens: 46 });
  assert.deepEqual(progressFromLog("agent: tool ../etc\n"), { tool: null, tokens: null });
  for (const line of log.trimEnd().split("\n")) assert.ok(isProtocolLine(line), line);
  assert.equal(isProtocolLine("error: Uncaught Error: boom"), false);
  assert.equal(isProtocolLine("agent: warning: x"), false);
});
