import assert from "node:assert/strict";
import { join } from "node:path";
import { createLogAdapter } from "./log_adapter.ts";
import { MemoryLogger } from "../logger.ts";
import type { DeliveryEvent } from "./types.ts";

const event: DeliveryEvent = {
  kind: "run_report",
  job_id: 1,
  run_id: 2,
  outcome: "ok",
  link: "/runs/1/2",
  title: "t",
  body: "b",
  priority: "normal",
  at: "2026-03-02T09:00:00Z",
};

Deno.test("the log adapter appends one JSON line per event, creating the directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "outpost", "delivery.jsonl");
    const adapter = createLogAdapter({ path });
    const signal = new AbortController().signal;
    await adapter.send(event, signal);
    await adapter.send({ ...event, run_id: 3 }, signal);
    const lines = (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.run_id), [2, 3]);
    assert.deepEqual(lines[0], event);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the log adapter can write to the injected logger instead", async () => {
  const logger = new MemoryLogger();
  await createLogAdapter({ logger }).send(event, new AbortController().signal);
  await createLogAdapter({ logger }).send(
    { ...event, priority: "high" },
    new AbortController().signal,
  );
  assert.deepEqual(logger.entries.map((e) => [e.level, e.message]), [
    ["info", "delivery run_report"],
    ["warn", "delivery run_report"],
  ]);
  assert.deepEqual(logger.entries[0]!.data, { event });
});
