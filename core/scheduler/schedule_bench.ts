// nextFire cost in a DST zone. The 30-day simulation of 100 jobs calls it once per fire
// (and once per job on create/update), so per-call cost times fires is the budget.

import { nextFire, previewFires, type Schedule } from "./schedule.ts";

const NY = "America/New_York";
const cron = (expr: string): Schedule => ({ kind: "cron", expr, tz: NY });

const ORDINARY = new Date("2026-06-10T12:34:56Z");
const SPRING_GAP = new Date("2026-03-08T06:59:30Z"); // 01:59:30 EST, the gap is next
const SECOND_PASS = new Date("2026-11-01T06:05:00Z"); // 01:05 EST, the repeated hour

for (
  const [name, s] of [
    ["*/5 * * * *", cron("*/5 * * * *")],
    ["30 2 * * *", cron("30 2 * * *")],
    ["0 9 * * 1-5", cron("0 9 * * 1-5")],
    ["0 0 1 * *", cron("0 0 1 * *")],
  ] as const
) {
  Deno.bench(`nextFire cron ${name} (New York, ordinary day)`, { group: "cron" }, () => {
    nextFire(s, ORDINARY);
  });
}

Deno.bench("nextFire cron * * * * * into the spring gap", { group: "dst edges" }, () => {
  nextFire(cron("* * * * *"), SPRING_GAP);
});

Deno.bench("nextFire cron * * * * * from the second pass of fall-back", {
  group: "dst edges",
}, () => {
  nextFire(cron("* * * * *"), SECOND_PASS);
});

Deno.bench("nextFire cron 30 2 * * * from before the gap day", { group: "dst edges" }, () => {
  nextFire(cron("30 2 * * *"), new Date("2026-03-07T12:00:00Z"));
});

Deno.bench("nextFire every 15m", { group: "other kinds" }, () => {
  nextFire({ kind: "every", expr: "15m", tz: NY }, ORDINARY);
});

Deno.bench("nextFire at (naive, New York)", { group: "other kinds" }, () => {
  nextFire({ kind: "at", expr: "2026-11-01T01:30", tz: NY }, ORDINARY);
});

// Roughly the simulation's load: 100 jobs over 30 days spanning the November change,
// one nextFire per fire (mixed patterns, about 55,000 fires in total).
const JOBS: Schedule[] = Array.from({ length: 100 }, (_, i) =>
  [
    cron("*/30 * * * *"),
    cron("0 * * * *"),
    cron(`${i % 60} ${i % 24} * * *`),
    cron("0 9 * * 1-5"),
  ][i % 4]!);

Deno.bench("100 jobs x 30 days of fires (New York, across fall-back)", {
  group: "simulation",
  n: 5,
}, () => {
  const from = new Date("2026-10-15T00:00:00Z");
  const until = new Date("2026-11-14T00:00:00Z").getTime();
  let fires = 0;
  for (const job of JOBS) {
    let cursor = from;
    for (;;) {
      const [next] = previewFires(job, cursor, 1);
      if (!next || next.getTime() >= until) break;
      fires++;
      cursor = next;
    }
  }
  if (fires < 10_000) throw new Error(`expected over 10,000 fires, got ${fires}`);
});
