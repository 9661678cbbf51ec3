// The retention deletes of the store (core/scheduler/retention.ts calls them through the
// Store): which rows each keeps is written on the Store interface. Each runs inside the
// caller's transaction (SqlStore wraps them), at most `limit` rows, oldest first.

import type { SqlStatement } from "./sql_connection.ts";
import { limitOf } from "./sqlite_rows.ts";
import type { Pruned } from "./store.ts";

type Prepare = (sql: string) => SqlStatement;

/** The condition of the live-run partial indexes (migration 001). */
const LIVE = "status IN ('queued', 'running')";

function reportsOf(rows: { report_path: string | null }[]): string[] {
  return rows.flatMap((r) => (r.report_path ? [r.report_path] : []));
}

export function pruneRuns(prepare: Prepare, before: string, limit: number): Pruned {
  // runs_finished serves the range; each exception is an index probe per candidate.
  const rows = prepare(
    `SELECT r.id, r.report_path FROM runs r
      WHERE r.finished_at IS NOT NULL AND r.finished_at < ?
        AND r.status NOT IN ('queued', 'running')
        AND r.id < (SELECT MAX(l.id) FROM runs l WHERE l.job_id = r.job_id)
        AND NOT EXISTS (SELECT 1 FROM inbox_items i WHERE i.run_id = r.id AND i.state = 'open')
        AND r.id NOT IN (SELECT q.resume_of_run FROM runs q
                          WHERE ${LIVE} AND q.resume_of_run IS NOT NULL)
      ORDER BY r.finished_at LIMIT ?`,
  ).all(before, limitOf({ limit })) as unknown as { id: number; report_path: string | null }[];
  const remove = prepare("DELETE FROM runs WHERE id = ?");
  for (const row of rows) remove.run(row.id);
  return { jobs: 0, runs: rows.length, reports: reportsOf(rows) };
}

export function pruneOneShots(prepare: Prepare, before: string, limit: number): Pruned {
  const jobs = prepare(
    `SELECT j.id FROM jobs j
      WHERE j.schedule_kind = 'at' AND j.next_run_at IS NULL AND j.updated_at < ?
        AND EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id)
        AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id
                         AND (r.finished_at IS NULL OR r.finished_at >= ?
                              OR r.status IN ('queued', 'running')))
        AND NOT EXISTS (SELECT 1 FROM inbox_items i WHERE i.job_id = j.id AND i.state = 'open')
      ORDER BY j.id LIMIT ?`,
  ).all(before, before, limitOf({ limit })) as unknown as { id: number }[];
  const runsOf = prepare("SELECT report_path FROM runs WHERE job_id = ?");
  const remove = prepare("DELETE FROM jobs WHERE id = ?");
  let runs = 0;
  const reports: string[] = [];
  for (const { id } of jobs) {
    const rows = runsOf.all(id) as unknown as { report_path: string | null }[];
    runs += rows.length;
    reports.push(...reportsOf(rows));
    remove.run(id); // runs and inbox items cascade
  }
  return { jobs: jobs.length, runs, reports };
}

export function pruneAudit(prepare: Prepare, before: string, limit: number): number {
  return Number(
    prepare(
      `DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE at < ? ORDER BY at LIMIT ?)`,
    ).run(before, limitOf({ limit })).changes,
  );
}
