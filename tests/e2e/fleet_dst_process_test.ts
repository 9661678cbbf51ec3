// The DST vectors across three real outpost processes on one PostgreSQL (issue 32: "the DST
// vectors fire exactly once each across the fleet"). Each node runs on the test clock of
// server/test_clock.ts, all three with the same value, so they agree on a virtual time that
// walks the EU's 2026 daylight-saving changes (London, Berlin and Helsinki change at the same
// instant, 01:00Z) at SPEED times real speed. Jobs are created through one node's API; every
// node ticks. Afterwards each job's runs, read from the shared store, are exactly the slots the
// zones' rules give (one run per slot, whichever node fired it), slots in a spring gap do not
// fire at all, slots in the repeated autumn hour fire at their first pass only, and each run
// started exactly one child across the fleet (one log file in one node's home).
//
// The expected instants are derived from the zones' rules (EU: last Sunday of March 01:00Z
// forward, last Sunday of October 01:00Z back) in the style of
// core/scheduler/schedule_vectors_test.ts, not from this implementation's output.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { type Fleet, startFleet, waitFor } from "./fleet_kit.ts";

/** Virtual seconds per real second: a 60-second tick every 1/6 s, a half hour in 5 s. */
const SPEED = 360;
/** Real time the three nodes get to start before the walk's anchor instant. */
const START_BUDGET_MS = 12_000;
/** Leases renew every third of theirs on the test clock: 1200 s renews about every 1.1 s. */
const LEASE_S = 1200;

interface Vector {
  expr: string;
  tz: string;
  /** Every fire from two hours before the window's anchor to its end, by the zone's rules. */
  fires: string[];
  /** Where the job stands after the walk: its next slot. */
  next: string;
}

interface Walk {
  /** The virtual instant at the real anchor; the walk ends at `until`. */
  anchor: string;
  until: string;
  /** The jobs must exist before this instant: the daylight-saving slots all come after it. */
  createdBefore: string;
  vectors: Vector[];
}

// 2026-03-29 01:00Z: London 01:00 GMT -> 02:00 BST, Berlin 02:00 CET -> 03:00 CEST,
// Helsinki 03:00 EET -> 04:00 EEST.
const SPRING: Walk = {
  anchor: "2026-03-29T00:10:00Z",
  until: "2026-03-29T01:45:00Z",
  createdBefore: "2026-03-29T00:00:00Z",
  vectors: [
    // 01:30 London and 02:30 Berlin do not exist on 03-29: skipped, not moved.
    { expr: "30 1 * * *", tz: "Europe/London", fires: [], next: "2026-03-30T00:30:00Z" },
    { expr: "30 2 * * *", tz: "Europe/Berlin", fires: [], next: "2026-03-30T00:30:00Z" },
    // Every half hour of Berlin's wall clock: the gap hour has no instants, so the UTC
    // half hours run on without a hole.
    {
      expr: "*/30 * * * *",
      tz: "Europe/Berlin",
      fires: [
        "2026-03-28T22:30:00Z",
        "2026-03-28T23:00:00Z",
        "2026-03-28T23:30:00Z",
        "2026-03-29T00:00:00Z",
        "2026-03-29T00:30:00Z",
        "2026-03-29T01:00:00Z", // 03:00 CEST, the first wall time after the gap
        "2026-03-29T01:30:00Z",
      ],
      next: "2026-03-29T02:00:00Z",
    },
    {
      expr: "0 * * * *",
      tz: "Europe/Helsinki",
      fires: [
        "2026-03-28T23:00:00Z",
        "2026-03-29T00:00:00Z",
        "2026-03-29T01:00:00Z", // 04:00 EEST: 03:00-04:00 EET never happened
      ],
      next: "2026-03-29T02:00:00Z",
    },
  ],
};

// 2026-10-25 01:00Z: London 02:00 BST -> 01:00 GMT, Berlin 03:00 CEST -> 02:00 CET,
// Helsinki 04:00 EEST -> 03:00 EET. Each repeated wall time fires at its first pass only.
const AUTUMN: Walk = {
  anchor: "2026-10-24T23:50:00Z",
  until: "2026-10-25T02:05:00Z",
  createdBefore: "2026-10-25T00:00:00Z",
  vectors: [
    // 01:30 London comes at 00:30Z (BST) and again at 01:30Z (GMT).
    {
      expr: "30 1 * * *",
      tz: "Europe/London",
      fires: ["2026-10-25T00:30:00Z"],
      next: "2026-10-26T01:30:00Z",
    },
    // A step limited to Berlin's repeated hour 02: its second pass (01:00Z, 01:30Z) is passed
    // over.
    {
      expr: "*/30 2 * * *",
      tz: "Europe/Berlin",
      fires: ["2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z"],
      next: "2026-10-26T01:00:00Z",
    },
    {
      expr: "0 * * * *",
      tz: "Europe/Helsinki",
      fires: [
        "2026-10-24T22:00:00Z",
        "2026-10-24T23:00:00Z",
        "2026-10-25T00:00:00Z", // 03:00 EEST; 03:00 EET at 01:00Z is its second pass
        "2026-10-25T02:00:00Z", // 04:00 EET
      ],
      next: "2026-10-25T03:00:00Z",
    },
  ],
};

/** The test clock's value: `anchor` at a real instant START_BUDGET_MS from now. */
function testClock(walk: Walk): { value: string; realAnchor: number } {
  const realAnchor = Date.now() + START_BUDGET_MS;
  return {
    value: `${walk.anchor} ${new Date(realAnchor).toISOString()} ${SPEED}`,
    realAnchor,
  };
}

/** The real instant at which the nodes' clocks read `virtual`. */
function realAt(walk: Walk, realAnchor: number, virtual: string): number {
  return realAnchor + (Date.parse(virtual) - Date.parse(walk.anchor)) / SPEED;
}

interface RunRow {
  id: number;
  status: string;
  queued_at: string;
  report_path: string | null;
}

async function walkFleet(walk: Walk): Promise<void> {
  const clock = testClock(walk);
  const fleet = await startFleet(["n1", "n2", "n3"], LEASE_S, {
    AGENT_OUTPOST_TEST_CLOCK: clock.value,
    // A child that succeeds at once: the runs are about fires, not agents.
    AGENT_OUTPOST_AGENT_BIN: "/bin/true",
  });
  try {
    const jobs: { id: number; created_at: string; vector: Vector }[] = [];
    for (const [i, vector] of walk.vectors.entries()) {
      const node = fleet.nodes[i % fleet.nodes.length]!;
      const res = await node.api("POST", "api/jobs", {
        name: `dst ${vector.expr} ${vector.tz}`,
        prompt: "p",
        schedule: { kind: "cron", expr: vector.expr, tz: vector.tz },
        workdir: fleet.workdir,
        timeout_s: 3600,
        max_retries: 0,
      });
      assert.equal(res.status, 201, res.text);
      jobs.push({ id: res.json.job.id, created_at: res.json.job.created_at, vector });
    }
    // The jobs exist before the slots the walk is about (the fires lists start earlier still).
    for (const j of jobs) {
      assert.ok(
        j.created_at < walk.createdBefore,
        `job created at ${j.created_at}, not before ${walk.createdBefore}: the nodes' test ` +
          "clock did not start them before the walk (a start too slow, or no test clock)",
      );
    }
    // Until every clock is two ticks past the walk's end, and nothing is left in flight.
    const end = realAt(walk, clock.realAnchor, walk.until) + (2 * 60_000) / SPEED;
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
    const reader = fleet.nodes[2]!;
    for (const j of jobs) {
      const runs = await waitFor(
        `job ${j.id}'s runs to end`,
        async () => (await reader.api("GET", `api/jobs/${j.id}/runs?limit=500`)).json.runs,
        (rs: RunRow[]) => rs.every((r) => r.status !== "queued" && r.status !== "running"),
      ) as RunRow[];
      await assertFiredOnce(fleet, walk, j, runs);
    }
  } finally {
    await fleet.close();
  }
}

/**
 * A run's row records when it was fired (`queued_at`: the tick that found its slot due), not the
 * slot itself. Ticks come every virtual minute, so a fire lands within FIRE_LAG_MS after its
 * slot; the vectors' slots are at least half an hour apart, so each fire maps to one slot.
 */
const FIRE_LAG_MS = 15 * 60_000;

function slotOf(firedAt: string, slots: readonly string[]): string | null {
  const t = Date.parse(firedAt);
  return slots.find((s) => Date.parse(s) <= t && t < Date.parse(s) + FIRE_LAG_MS) ?? null;
}

async function assertFiredOnce(
  fleet: Fleet,
  walk: Walk,
  job: { id: number; created_at: string; vector: Vector },
  runs: RunRow[],
): Promise<void> {
  const what = `${job.vector.expr} ${job.vector.tz} (created ${job.created_at})`;
  const inWalk = runs.filter((r) => r.queued_at <= walk.until);
  const expected = job.vector.fires.filter((f) => f > job.created_at);
  const fired = inWalk.map((r) => slotOf(r.queued_at, job.vector.fires) ?? `${r.queued_at}?`);
  // Every expected slot once, none twice, and no fire that is not a slot (the second pass of a
  // repeated hour, a time in a gap) — whichever node fired it.
  assert.deepEqual(fired.sort(), expected, `${what}: slots fired (runs ${JSON.stringify(inWalk)})`);
  for (const r of inWalk) assert.equal(r.status, "ok", `${what}: run ${JSON.stringify(r)}`);
  // One child per run, across every node's home; each run's report lies in one node's home.
  assert.equal((await fleet.executions(job.id)).length, runs.length, `${what}: children`);
  for (const r of inWalk) {
    const homes = fleet.nodes.filter((n) => r.report_path?.startsWith(`${n.home}/`));
    assert.equal(homes.length, 1, `${what}: run ${r.id} ran on one node`);
  }
  const after = await fleet.nodes[0]!.api("GET", `api/jobs/${job.id}`);
  const next = after.json.job.next_run_at;
  // The walk may have run a tick or two past `until`: the next slot is the vector's, or (when
  // that slot has come too) the run fired after the walk was for it.
  if (runs.length === inWalk.length) assert.equal(next, job.vector.next, `${what}: next slot`);
  else {
    const late = runs.filter((r) => r.queued_at > walk.until);
    assert.equal(late.length, 1, `${what}: one fire past the walk`);
    assert.equal(slotOf(late[0]!.queued_at, [job.vector.next]), job.vector.next, what);
  }
}

peerTest(
  "three outpost processes walk the EU spring-forward gap: each slot fires once, gap slots never",
  probes.postgres,
  () => walkFleet(SPRING),
);

peerTest(
  "three outpost processes walk the EU fall-back overlap: each slot fires once, at its first pass",
  probes.postgres,
  () => walkFleet(AUTUMN),
);
