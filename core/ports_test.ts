// The system clock's sleep holds the process like a timer until it ends, leaves nothing
// behind once cancelled, and rejects with the abort reason.

import assert from "node:assert/strict";
import { systemClock } from "./ports.ts";

const PORTS = new URL("./ports.ts", import.meta.url).href;

/** Runs a snippet in a fresh Deno process; its stdout lines. */
async function runSnippet(code: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", `import { systemClock } from "${PORTS}";\n${code}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.ok(out.success, dec.decode(out.stderr));
  return dec.decode(out.stdout).trim().split("\n");
}

Deno.test("a pending sleep keeps the process alive until it ends", async () => {
  const lines = await runSnippet(
    `systemClock.sleep(20).then(() => console.log("woke"));
     console.log("end of script");`,
  );
  assert.deepEqual(lines, ["end of script", "woke"]);
});

Deno.test("a cancelled sleep no longer holds the process", async () => {
  // Were the cancelled timer still held, the process would stay a minute and print "woke".
  const lines = await runSnippet(
    `const stop = new AbortController();
     systemClock.sleep(60_000, stop.signal).then(() => console.log("woke"), () => console.log("stopped"));
     stop.abort(new Error("stopped"));`,
  );
  assert.deepEqual(lines, ["stopped"]);
});

Deno.test("sleep rejects with the abort reason, also when aborted already", async () => {
  const stop = new AbortController();
  const waiting = systemClock.sleep(60_000, stop.signal);
  stop.abort(new Error("stopped"));
  await assert.rejects(waiting, /stopped/);
  await assert.rejects(systemClock.sleep(1, stop.signal), /stopped/);
});

Deno.test("a sleep beyond a timer's range (2^31 ms) waits instead of firing at once", async () => {
  const lines = await runSnippet(
    `const stop = new AbortController();
     systemClock.sleep(3_000_000_000, stop.signal).then(() => console.log("woke"), () => console.log("stopped"));
     await new Promise((r) => AbortSignal.timeout(50).addEventListener("abort", r));
     stop.abort(new Error("stopped"));`,
  );
  assert.deepEqual(lines, ["stopped"]);
});
