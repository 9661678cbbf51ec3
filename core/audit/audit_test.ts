import assert from "node:assert/strict";
import { MemoryLogger } from "../logger.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { AUDIT, audit } from "./audit.ts";

Deno.test("audit writes the row and returns it", () => {
  const store = new SqliteStore({ path: ":memory:", clock: new FakeClock("2026-03-02T09:00:00Z") });
  try {
    const logger = new MemoryLogger();
    const row = audit(store, logger, {
      action: AUDIT.bodyRead,
      target: "facts/a.md",
      actor: "dashboard",
      channel: "dashboard",
      detail: "12 bytes",
    });
    assert.equal(row!.action, "body_read");
    assert.equal(row!.at, "2026-03-02T09:00:00Z");
    assert.deepEqual(store.listAudit().map((r) => r.target), ["facts/a.md"]);
    assert.equal(logger.entries.length, 0);
  } finally {
    store.close();
  }
});

Deno.test("a throwing or refusing store is logged, never thrown", () => {
  const logger = new MemoryLogger();
  const throwing = {
    appendAudit(): never {
      throw new Error("disk full");
    },
  };
  const row = {
    action: AUDIT.answer,
    target: "inbox:1",
    actor: "dashboard",
    channel: "dashboard" as const,
    detail: "",
  };
  assert.equal(audit(throwing, logger, row), null);
  assert.equal(audit({ appendAudit: () => null }, logger, row), null);
  assert.equal(logger.entries.length, 2);
  assert.equal(logger.entries[0]!.level, "warn");
  assert.equal(logger.entries[0]!.data!.error, "disk full");
  assert.equal(logger.entries[0]!.data!.action, "answer");
  const broken = {
    log(): never {
      throw new Error("logger broken too");
    },
  };
  assert.equal(audit(throwing, broken, row), null, "even a broken logger does not throw");
});

Deno.test("long details are capped", () => {
  const store = new SqliteStore({ path: ":memory:", clock: new FakeClock() });
  try {
    const row = audit(store, new MemoryLogger(), {
      action: AUDIT.jobUpdate,
      target: "job:1",
      actor: "x",
      channel: "dashboard",
      detail: "d".repeat(5000),
    });
    assert.equal(row!.detail.length, 1000);
    assert.ok(row!.detail.endsWith("…"));
  } finally {
    store.close();
  }
});
