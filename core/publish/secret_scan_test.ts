// The secret scanner (secret_scan.ts): stored secrets wherever they appear, machine-token
// shapes, secretlint's formats, overlapping findings joined, and a scanner that cannot run
// holds the text instead of letting it out (gate.ts).

import assert from "node:assert/strict";
import { MemoryLogger } from "../logger.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { okRunRecords } from "../../tests/fakes/job_fixture.ts";
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
    const { job, run } = okRunRecords(store);
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

Deno.test("the formats an attack pass tried are all held (one table, one finding each)", async () => {
  const scanner = new SecretScanner(() => Promise.resolve([STORED]));
  const b64 = "MIIEowIBAAKCAQEA7bq2tYcAbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/abcd\n";
  const openai = "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3".repeat(2).slice(0, 74);
  const cases: Record<string, string> = {
    "stored-secret": STORED,
    "machine-token": `aop_${"Ab3_".repeat(10)}xyz`,
    "aws": "AKIAZ3MSJV4WWNKWW5FG",
    "aws secret": "aws_secret_access_key = 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",
    "github": "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",
    "github fine-grained": `github_pat_11ABCDEFG0123456789abc_${
      "a1B2c3D4e5F6g7H8i9J0".repeat(2)
    }k1L2m3N4o5P6q7R8s9Z`,
    "gitlab": "glpat-xR7sT2vW9yZ4bC6dF8gH",
    "slack": "xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "openai": `sk-proj-${openai}T3BlbkFJ${openai}`,
    "anthropic": `sk-ant-api03-${"a".repeat(93)}AA`,
    "privatekey": `-----BEGIN RSA PRIVATE KEY-----\n${b64.repeat(10)}-----END RSA PRIVATE KEY-----`,
    "npm": "npm_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
    "stripe": "sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
    "basicauth": "https://admin:s3cretP4ss@internal.example.org/",
    "database": "postgres://app:hunter2pass@db.internal:5432/prod",
    "sendgrid": "SG.aBcDeFgHiJkLmNoPqRsTuV.aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdefg",
    "google-api-key": "AIzaSyD4kL9xQ2mN7pR1sT6vW0yZ3bC8eF5hJ-_",
  };
  const through: string[] = [];
  for (const [name, secret] of Object.entries(cases)) {
    const { findings, redacted } = await scanner.scan(`Found in .env: ${secret} (done)`);
    if (findings.length === 0 || redacted.includes(secret)) through.push(name);
  }
  assert.deepEqual(through, [], "formats that got through");
});
