import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { runScheduleNext, SCHEDULE_NEXT_USAGE } from "./schedule_next.ts";

/** Runs the command on a fake clock; returns exit code, stdout lines and stderr lines. */
function run(args: string[], now = "2026-03-07T12:00:00Z") {
  const out: string[] = [];
  const err: string[] = [];
  const code = runScheduleNext(args, (l) => out.push(l), {
    clock: new FakeClock(now),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}

/** Asserts exit 1 with exactly one error line starting with `prefix` and naming `parts`. */
function fails(args: string[], prefix: string, ...parts: string[]): void {
  const r = run(args);
  assert.equal(r.code, 1);
  assert.deepEqual(r.out, []);
  assert.equal(r.err.length, 1, r.err.join("\n"));
  const line = r.err[0]!;
  assert.ok(!line.includes("\n"), "one line");
  assert.ok(line.startsWith(`error: ${prefix}`), line);
  for (const part of parts) assert.ok(line.includes(part), `${line} lacks ${part}`);
}

Deno.test("prints the design.md vector as UTC ISO-Z lines", () => {
  const r = run([
    "--kind",
    "cron",
    "--expr",
    "*/30 * * * *",
    "--tz",
    "America/New_York",
    "--from",
    "2026-11-01T04:50:00Z",
    "--count",
    "4",
  ]);
  assert.equal(r.code, 0);
  assert.deepEqual(r.err, []);
  assert.deepEqual(r.out, [
    "2026-11-01T05:00:00Z",
    "2026-11-01T05:30:00Z",
    "2026-11-01T07:00:00Z",
    "2026-11-01T07:30:00Z",
  ]);
});

Deno.test("defaults: from the clock's now, 5 fires, UTC", () => {
  const r = run(["--kind", "cron", "--expr", "30 2 * * *"], "2026-03-07T12:00:00Z");
  assert.equal(r.code, 0);
  assert.deepEqual(r.out, [
    "2026-03-08T02:30:00Z",
    "2026-03-09T02:30:00Z",
    "2026-03-10T02:30:00Z",
    "2026-03-11T02:30:00Z",
    "2026-03-12T02:30:00Z",
  ]);
  const ny = run(["--kind=cron", "--expr=30 2 * * *", "--tz=America/New_York", "--count=2"]);
  assert.deepEqual(ny.out, ["2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"]);
});

Deno.test("every, at and a naive --from read in --tz", () => {
  assert.deepEqual(run(["--kind", "every", "--expr", "90m", "--count", "2"]).out, [
    "2026-03-07T13:30:00Z",
    "2026-03-07T15:00:00Z",
  ]);
  assert.deepEqual(
    run(["--kind", "at", "--expr", "2026-11-01T01:30", "--tz", "America/New_York"]).out,
    ["2026-11-01T05:30:00Z"],
  );
  // A naive at inside the spring-forward gap is passed over to the gap's end (03:00 EDT).
  assert.deepEqual(
    run(["--kind", "at", "--expr", "2026-03-08T02:30", "--tz", "America/New_York"]).out,
    ["2026-03-08T07:00:00Z"],
  );
  // --from 2026-11-01T01:10 in New York is the first pass (EDT, 05:10Z).
  assert.deepEqual(
    run([
      "--kind",
      "cron",
      "--expr",
      "*/30 * * * *",
      "--tz",
      "America/New_York",
      "--from",
      "2026-11-01T01:10",
      "--count",
      "2",
    ]).out,
    ["2026-11-01T05:30:00Z", "2026-11-01T07:00:00Z"],
  );
  // --count 100 is the maximum and prints 100 lines.
  const many = run(["--kind", "cron", "--expr", "0 * * * *", "--count", "100"]);
  assert.equal(many.code, 0);
  assert.equal(many.out.length, 100);
  // Everything is evaluated as of --from: an at before the clock's now but after --from
  // is accepted and printed; one before --from is refused as not in the future.
  assert.deepEqual(
    run(["--kind", "at", "--expr", "2026-03-05T00:00Z", "--from", "2026-03-01T00:00Z"]).out,
    ["2026-03-05T00:00:00Z"],
  );
  fails(
    ["--kind", "at", "--expr", "2026-03-09T00:00Z", "--from", "2026-03-10T00:00Z"],
    "--expr:",
    "not in the future (now is 2026-03-10T00:00:00Z)",
  );
});

Deno.test("--help prints usage and exits 0", () => {
  for (const flag of ["--help", "-h"]) {
    const r = run([flag]);
    assert.equal(r.code, 0);
    assert.deepEqual(r.out, SCHEDULE_NEXT_USAGE.split("\n"));
    assert.ok(r.out[0]!.startsWith("usage: agent-outpost schedule next"));
  }
});

Deno.test("bad input: one line naming the flag, exit 1", () => {
  fails(["--expr", "5m"], "--kind: required");
  fails(["--kind", "cron"], "--expr: required");
  fails(["--kind", "hourly", "--expr", "5m"], "--kind:", "every, cron, at");
  fails(["--kind", "cron", "--expr", "61 * * * *"], "--expr:", "not a valid cron expression");
  fails(["--kind", "cron", "--expr", "0 30 9 * * *"], "--expr:", "got 6");
  fails(["--kind", "cron", "--expr", "@daily"], "--expr:", "`0 0 * * *`");
  fails(["--kind", "cron", "--expr", "0 9 * * *", "--tz", "Mars/Base"], "--tz:", "IANA");
  fails(["--kind", "every", "--expr", "30s"], "--expr:", "60-second floor");
  fails(["--kind", "every", "--expr", "5 minutes"], "--expr:", "not an interval");
  fails(["--kind", "at", "--expr", "2026-03-01T00:00Z"], "--expr:", "not in the future");
  fails(["--kind", "at", "--expr", "tomorrow at 9"], "--expr:", "natural language");
  fails(["--kind", "cron", "--expr", "0 9 * * *", "--count", "0"], "--count:", "1 to 100");
  fails(["--kind", "cron", "--expr", "0 9 * * *", "--count", "101"], "--count:", "1 to 100");
  fails(["--kind", "cron", "--expr", "0 9 * * *", "--count", "five"], "--count:");
  fails(["--kind", "cron", "--expr", "0 9 * * *", "--from", "yesterday"], "--from:", "ISO-8601");
  fails(
    [
      "--kind",
      "cron",
      "--expr",
      "0 9 * * *",
      "--tz",
      "America/New_York",
      "--from",
      "2026-03-08T02:30",
    ],
    "--from:",
    "does not exist in America/New_York",
  );
  fails(
    ["--kind", "cron", "--expr", "0 9 * * *", "--frm", "x"],
    "Unknown option '--frm'",
    "--help",
  );
  fails(["--kind"], "Option '--kind", "--help");
  fails(["--kind", "cron", "--expr", "0 9 * * *", "extra"], 'unexpected argument "extra"');
});

Deno.test("errors go to out when no err sink is given", () => {
  const out: string[] = [];
  const code = runScheduleNext(["--kind", "cron", "--expr", "nope"], (l) => out.push(l));
  assert.equal(code, 1);
  assert.equal(out.length, 1);
  assert.ok(out[0]!.startsWith("error: --expr:"));
});

Deno.test("--tz takes UTC and region names; legacy aliases are refused naming the flag and the name to use", () => {
  fails(
    ["--kind", "every", "--expr", "1h", "--tz", "EST"],
    "--tz: ",
    '"EST" is a legacy alias',
    "America/Panama",
  );
  fails(
    ["--kind", "every", "--expr", "1h", "--tz", "US/Eastern"],
    "--tz: ",
    "America/New_York",
  );
  const lower = run(["--kind", "every", "--expr", "1h", "--tz", "utc", "--count", "1"]);
  assert.equal(lower.code, 0, lower.err.join("\n"));
  assert.deepEqual(lower.out, ["2026-03-07T13:00:00Z"]);
});
