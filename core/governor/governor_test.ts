import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { envFrom } from "../ports.ts";
import { DEFAULT_GOVERNOR_CONFIG, governorPath, loadGovernorConfig } from "./config.ts";
import { Governor, type QueuedRun } from "./governor.ts";

function governor(
  tokens = 0,
  config = structuredClone(DEFAULT_GOVERNOR_CONFIG),
  path = "/nonexistent/governor.json",
) {
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const since: string[] = [];
  const g = new Governor({
    path,
    env: envFrom({}),
    clock,
    store: {
      tokensSince: (_cls, s) => {
        since.push(s);
        return tokens;
      },
    },
  }, config);
  return { g, since };
}

Deno.test("admission checks total cap, class cap, tokens per hour, then defer", () => {
  const { g, since } = governor(500);
  assert.deepEqual(g.admit("api", { api: 0, scheduled: 0 }, null), { ok: true });
  assert.equal(since.length, 0, "no token query while tokens_per_hour is unlimited");
  const cap = g.admit("api", { api: 2, scheduled: 0 }, null);
  assert.ok(!cap.ok && cap.lever === "max_concurrent");
  const total = g.admit("scheduled", { api: 2, scheduled: 2 }, null);
  assert.ok(!total.ok && total.lever === "total_concurrent");
  assert.equal(g.totalCap, 4);
});

Deno.test("tokens_per_hour reads a rolling window ending now; 0 is unlimited", async () => {
  const home = await Deno.makeTempDir();
  try {
    const { g, since } = governor(
      500,
      structuredClone(DEFAULT_GOVERNOR_CONFIG),
      governorPath(home),
    );
    await g.update({ tokens_per_hour: { scheduled: 500 } });
    const r = g.admit("scheduled", { api: 0, scheduled: 0 }, null);
    assert.ok(!r.ok && r.lever === "tokens_per_hour");
    assert.equal(since[0], "2026-03-02T08:00:00Z");
    assert.deepEqual(g.admit("api", { api: 0, scheduled: 0 }, null), { ok: true }, "per class");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("defer holds at or over the threshold; null (unreachable) never holds", async () => {
  const config = { ...structuredClone(DEFAULT_GOVERNOR_CONFIG), defer_when_interactive: true };
  const { g } = governor(0, config);
  const none = { api: 0, scheduled: 0 };
  assert.deepEqual(g.admit("api", none, 1), { ok: true });
  const held = g.admit("api", none, 2);
  assert.ok(!held.ok && held.lever === "defer_when_interactive");
  assert.deepEqual(g.admit("api", none, null), { ok: true });
  assert.equal(await g.readWaiting(), null, "no reader wired: fail-open");
});

Deno.test("update validates, persists atomically, and a bad update changes nothing", async () => {
  const home = await Deno.makeTempDir();
  try {
    const path = governorPath(home);
    const { g } = governor(0, structuredClone(DEFAULT_GOVERNOR_CONFIG), path);
    const next = await g.update({ max_concurrent: { scheduled: 3 }, defer_when_interactive: true });
    assert.equal(next.max_concurrent.scheduled, 3);
    assert.equal(next.max_concurrent.api, 2);
    assert.deepEqual(await loadGovernorConfig(path), next);
    await assert.rejects(() => g.update({ queue_depth_max: 0 }), {
      name: "GovernorConfigError",
      message: /queue_depth_max: expected a whole number in 1\.\.1000, got 0/,
    });
    assert.deepEqual(g.config, next);
    assert.deepEqual(await loadGovernorConfig(path), next);
    const leftovers = [...Deno.readDirSync(`${home}/outpost`)].map((e) => e.name);
    assert.deepEqual(leftovers, ["governor.json"], "no temp files left");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("priorities: a job pin wins over the class default; lower runs first", () => {
  const { g } = governor();
  assert.equal(g.priorityFor("api", null), 5);
  assert.equal(g.priorityFor("scheduled", null), 10);
  assert.equal(g.priorityFor("scheduled", 1), 1);
});

/** `n` queued runs of one kind: a submission (api, first start), a retry, a resume, a fire. */
function queued(n: number, kind: "submission" | "retry" | "resume" | "scheduled"): QueuedRun[] {
  return Array.from({ length: n }, () => ({
    class: kind === "scheduled" ? "scheduled" : "api",
    attempt: kind === "retry" ? 2 : 1,
    resume_of_run: kind === "resume" ? 7 : null,
  }));
}

Deno.test("queue depth: the submission that would pass queue_depth_max is refused; only submissions count", () => {
  const { g } = governor();
  g.checkQueueDepth(queued(15, "submission"));
  // Retries, resumes and scheduled fires are not submissions: they never fill the queue.
  g.checkQueueDepth([
    ...queued(15, "submission"),
    ...queued(5, "retry"),
    ...queued(5, "resume"),
    ...queued(5, "scheduled"),
  ]);
  assert.throws(
    () => g.checkQueueDepth(queued(16, "submission")),
    { name: "CapacityError", code: "capacity-exceeded" } as never,
  );
});

Deno.test("usage reports live slots, queue and token windows per class", () => {
  const { g } = governor(42);
  const u = g.usage({ api: 1, scheduled: 2 }, queued(3, "submission"));
  assert.deepEqual(u.total, { running: 3, max: 4 });
  assert.deepEqual(u.queue, { depth: 3, max: 16, other: 0 });
  assert.deepEqual(u.classes.api, {
    running: 1,
    max_concurrent: 2,
    queued: 3,
    tokens_last_hour: 42,
    tokens_per_hour: 0,
    default_priority: 5,
  });
  assert.deepEqual(u.defer, { enabled: false, threshold: 2, waiting: null });
});

Deno.test("Governor.open refuses a malformed file instead of starting on defaults", async () => {
  const home = await Deno.makeTempDir();
  try {
    const path = governorPath(home);
    await Deno.mkdir(`${home}/outpost`);
    await Deno.writeTextFile(path, "{nope");
    await assert.rejects(
      () =>
        Governor.open({
          path,
          env: envFrom({}),
          clock: new FakeClock(),
          store: { tokensSince: () => 0 },
        }),
      { name: "GovernorConfigError" },
    );
    assert.equal(await Deno.readTextFile(path), "{nope");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
