// The job list's reads in the store (SQLite and PostgreSQL): the list with each job's latest
// run, the names alone, the count for the job cap, and the scheduler's due jobs.

import type { Row, SqlStatement } from "./sql_connection.ts";
import { toJob, toJobWithLatestRun } from "./sqlite_rows.ts";
import type { DueCursor, Job, JobClass, JobWithLatestRun, ListOptions } from "./store.ts";

type Prepare = (sql: string) => SqlStatement;

/** Newest first, each with its latest run; all of them unless `options.limit`. */
export function listJobs(prepare: Prepare, options: ListOptions): JobWithLatestRun[] {
  const rows = prepare(
    `SELECT j.*, r.id AS lr_id, r.status AS lr_status, r.exit_code AS lr_exit_code,
            r.attempt AS lr_attempt, r.queued_at AS lr_queued_at, r.finished_at AS lr_finished_at
       FROM jobs j
       LEFT JOIN runs r ON r.id = (SELECT MAX(id) FROM runs WHERE job_id = j.id)
      WHERE j.id < ?
      ORDER BY j.id DESC LIMIT ?`,
  ).all(
    options.before_id ?? Number.MAX_SAFE_INTEGER,
    options.limit ?? Number.MAX_SAFE_INTEGER,
  ) as Row[];
  return rows.map(toJobWithLatestRun);
}

/** Every job's name by id, newest first (the pages' job names and filters). */
export function jobNames(prepare: Prepare): Map<number, string> {
  const rows = prepare("SELECT id, name FROM jobs ORDER BY id DESC").all() as Row[];
  return new Map(rows.map((r) => [r.id as number, r.name as string]));
}

export function countJobs(prepare: Prepare, cls?: JobClass): number {
  const row = cls === undefined
    ? prepare("SELECT COUNT(*) AS n FROM jobs").get()
    : prepare("SELECT COUNT(*) AS n FROM jobs WHERE class = ?").get(cls);
  return (row as { n: number }).n;
}

/** Enabled jobs whose next_run_at is at or before `at`, earliest first. */
export function dueJobs(prepare: Prepare, at: string): Job[] {
  return prepare(
    `SELECT * FROM jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?
      ORDER BY next_run_at, id`,
  ).all(at).map(toJob);
}

/**
 * A page of due jobs after `after`, in (next_run_at, id) order. `locks` (PostgreSQL, in a
 * transaction on rows): each job returned is locked until the commit, and one another
 * transaction holds is skipped (SKIP LOCKED), so nodes ticking at once take disjoint jobs.
 * READ COMMITTED re-checks the condition on a row's newest version before locking it: a job
 * another node fired (next_run_at moved) or the dashboard disabled meanwhile is not returned.
 */
export function dueJobsPage(
  prepare: Prepare,
  at: string,
  limit: number,
  after: DueCursor | null,
  locks: boolean,
): Job[] {
  const from = after ?? { next_run_at: "", id: 0 };
  return prepare(
    `SELECT * FROM jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?
        AND (next_run_at > ? OR (next_run_at = ? AND id > ?))
      ORDER BY next_run_at, id LIMIT ?${locks ? " FOR UPDATE SKIP LOCKED" : ""}`,
  ).all(at, from.next_run_at, from.next_run_at, from.id, limit).map(toJob);
}

export function nextSlotAfter(prepare: Prepare, at: string): string | null {
  const row = prepare(
    `SELECT MIN(next_run_at) AS slot FROM jobs
      WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at > ?`,
  ).get(at) as { slot: string | null } | undefined;
  return row?.slot ?? null;
}
