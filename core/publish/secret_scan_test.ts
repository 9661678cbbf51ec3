// The secret scanner (secret_scan.ts): stored secrets wherever they appear, machine-token
// shapes, secretlint's formats, overlapping findings joined, and a scanner that cannot run
// holds the text instead of letting it out (gate.ts).

import assert from "node:assert/strict";
import { MemoryLogger } from "../logger.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { PublishGate } from "./gate.ts";
import { ruleNames, SecretScanner } from "./secret_scan.ts";

const STORED = "my-stored-key-0123456789";

Deno.test("stored secrets, machine tokens and common formats are found and redacted", async () => {
  const scanner = new SecretScanner(() => Promise.resolve([STORED, "short"]));
  const token = `aop_${"A".repeat(43)}`;
  const text = `a ${STORED} b ${STORED} c ${token} d AKIAZ3MSJV4WWNKWW5FG e short f`;
  const { findings, redacted } = await scanner.scan(text);
  assert.deepEqual(ruleNames(findings), ["aws", "machine-token", "stored-secret"]);
  assert.equal(
    redacted,
    "a [redacted stored-secret] b [redacted stored-secret] c [redacted machine-token] " +
      "d [redacted aws] e short f",
  );
  assert.deepEqual((await scanner.scan("a plain triage answer, no keys")).findings, []);
});

Deno.test("a stored secret inside a longer token is one redaction, not two overlapping", async () => {
  const pat = "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";
  const scanner = new SecretScanner(() => Promise.resolve([pat]));
  const { findings, redacted } = await scanner.scan(`x ${pat} y`);
  assert.equal(findings.length, 1);
  assert.equal(redacted, "x [redacted stored-secret] y");
});

Deno.test("a scanner that cannot run holds the text: nothing unchecked leaves", async () => {
  const clock = new FakeClock();
  const store = new SqliteStore({ path: ":memory:", clock });
  const home = await Deno.makeTempDir();
  try {
    const job = store.createJob(newJobFixture());
    const run = store.createRun({
      job_id: job.id,
      status: "ok",
      attempt: 1,
      exit_code: 0,
      priority: 10,
      class: "scheduled",
    });
    const broken = new SecretScanner(() => Promise.reject(new Error("settings.toml: bad TOML")));
    const logger = new MemoryLogger();
    const gate = new PublishGate({ store, scanner: broken, home, logger });
    const screened = await gate.screen({
      surface: "chat",
      where: "room !r",
      job_id: job.id,
      run_id: run.id,
      text: "harmless",
      payload: { room: "!r", text: "harmless" },
    });
    assert.equal(screened.kind, "held");
    const [row] = store.listAudit({ action: "publish_held" });
    assert.match(row!.detail, /it matched scanner-failed/);
    assert.doesNotMatch(row!.detail, /bad TOML/, "the parser's words stay in the log");
    assert.match(JSON.stringify(logger.entries), /bad TOML/);
  } finally {
    store.close();
    await Deno.remove(home, { recursive: true });
  }
});
