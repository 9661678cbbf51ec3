// The store scripts/bench_outpost_http.ts measures: jobs and their runs written straight into
// a temp AGENT_HOME's SQLite file (one transaction, far faster than the store's own inserts),
// and a session journal for the run page's transcript.

import { DatabaseSync } from "node:sqlite";
import { outpostDbPath, SqliteStore } from "../core/store/sqlite_store.ts";
import { systemClock } from "../core/ports.ts";
import { newJobFixture } from "../tests/fakes/job_fixture.ts";

/**
 * Fills `home`'s outpost store with `jobs` jobs of `runsPerJob` runs each (the last ~28 hours),
 * and writes the session journal the run page's transcript reads.
 */
export function fillBenchHome(home: string, JOBS: number, RUNS_PER_JOB: number): void {
  const path = outpostDbPath(home);
  const store = new SqliteStore({ path, clock: systemClock }); // creates and migrates
  for (let i = 0; i < JOBS; i++) {
    store.createJob(newJobFixture({
      name: `bench job ${i}`,
      prompt: `summarize repository ${i} and list open risks`,
      schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" },
      workdir: "/tmp",
      next_run_at: "2099-01-01T09:00:00Z",
    }));
  }
  store.close();
  // Bulk runs through one transaction on a side connection (the store API inserts one by one).
  const db = new DatabaseSync(path);
  const insert = db.prepare(
    `INSERT INTO runs (job_id, status, attempt, exit_code, queued_at, started_at, finished_at,
       report_path, priority, class, tokens_in, tokens_out, duration_ms, model, session_id)
       VALUES (?, ?, 1, ?, ?, ?, ?, ?, 10, 'scheduled', 1200, 150, 850, 'gpt-5-mini', ?)`,
  );
  db.exec("BEGIN");
  const statuses = ["ok", "ok", "ok", "error", "needs_human", "skipped"];
  // Ending now, so the charts' windows hold real data (one run a second: ~28 hours).
  let t = Date.now() - JOBS * RUNS_PER_JOB * 1000;
  for (let r = 0; r < RUNS_PER_JOB; r++) {
    for (let j = 1; j <= JOBS; j++) {
      t += 1000;
      const at = new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");
      const status = statuses[(r + j) % statuses.length]!;
      insert.run(
        j,
        status,
        status === "ok" ? 0 : 1,
        at,
        at,
        at,
        `${home}/outpost/runs/${j}/${t}.md`,
        r === RUNS_PER_JOB - 1 && j === 1 ? "bench-session" : null,
      );
    }
  }
  const audit = db.prepare(
    "INSERT INTO audit (at, action, target, actor, detail) VALUES (?, ?, ?, ?, 'bench')",
  );
  const actions = ["job_update", "job_trigger", "answer", "body_read"];
  for (let i = 0; i < 20_000; i++) {
    const at = new Date(t - (20_000 - i) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    audit.run(
      at,
      actions[i % actions.length]!,
      `job:${i % JOBS}`,
      i % 3 ? "dashboard" : "user:ann",
    );
  }
  db.exec("COMMIT");
  db.close();
  // A session journal for the run page's transcript: 40 turns with tool calls.
  const lines = [
    JSON.stringify({
      type: "meta",
      meta: {
        id: "bench-session",
        created_at: "",
        workdir: "/tmp",
        provider: "p",
        model: "m",
        mode: "auto",
      },
    }),
  ];
  for (let i = 0; i < 40; i++) {
    lines.push(
      JSON.stringify({
        type: "message",
        message: {
          role: "assistant",
          parts: [{ type: "text", text: `step ${i}` }, {
            type: "tool_call",
            id: `c${i}`,
            name: "view",
            input: { path: `f${i}.ts` },
          }],
        },
      }),
    );
    lines.push(
      JSON.stringify({
        type: "message",
        message: {
          role: "user",
          parts: [{ type: "tool_result", call_id: `c${i}`, content: "x".repeat(2000) }],
        },
      }),
    );
  }
  Deno.mkdirSync(`${home}/sessions`, { recursive: true });
  Deno.writeTextFileSync(`${home}/sessions/bench-session.jsonl`, lines.join("\n") + "\n");
}
