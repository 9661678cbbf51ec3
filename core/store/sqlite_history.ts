// The history queries of the SQLite store (dashboard /runs, /jobs/<id>, /audit and the
// hourly charts). Each filter combination names the index it reads (INDEXED BY), so the
// plan never depends on the planner's guesses: a page is a range scan of about `limit`
// index entries however many rows the table holds (sqlite_history_test.ts checks the plans).

import type { SqlStatement } from "./sql_connection.ts";
import { limitOf, plain, type Row, toRun } from "./sqlite_rows.ts";
import type {
  AuditFilter,
  AuditRow,
  HourCount,
  JobClass,
  ListOptions,
  Run,
  RunFilter,
} from "./store.ts";

type Prepare = (sql: string) => SqlStatement;

/** The index that yields a run filter's rows in id order (null: the table's own rowid). */
export function runIndexFor(filter: RunFilter): string | null {
  if (filter.job_id !== undefined) {
    return filter.status !== undefined ? "runs_job_status_id" : "runs_job";
  }
  if (filter.class !== undefined) {
    return filter.status !== undefined ? "runs_class_status_id" : "runs_class_id";
  }
  if (filter.status !== undefined) return "runs_status_id";
  return null;
}

/**
 * The id range of runs queued in [from, to): one probe of runs_queued per end. Ids grow
 * with queued_at (a run is created with the clock's now), so the bounds turn a date range
 * into a rowid range the page scan can use; the exact queued_at test stays in the query.
 */
function idBounds(prepare: Prepare, filter: RunFilter): { lo: number; hi: number } {
  let lo = 0;
  let hi = Number.MAX_SAFE_INTEGER;
  if (filter.from !== undefined) {
    const first = prepare(
      `SELECT MIN(id) AS id FROM runs INDEXED BY runs_queued WHERE queued_at = (
         SELECT queued_at FROM runs INDEXED BY runs_queued WHERE queued_at >= ?
          ORDER BY queued_at LIMIT 1)`,
    ).get(filter.from) as { id: number | null };
    lo = first.id ?? Number.MAX_SAFE_INTEGER;
  }
  if (filter.to !== undefined) {
    const last = prepare(
      `SELECT MAX(id) AS id FROM runs INDEXED BY runs_queued WHERE queued_at = (
         SELECT queued_at FROM runs INDEXED BY runs_queued WHERE queued_at < ?
          ORDER BY queued_at DESC LIMIT 1)`,
    ).get(filter.to) as { id: number | null };
    hi = last.id ?? 0;
  }
  return { lo, hi };
}

export function listRunHistory(
  prepare: Prepare,
  filter: RunFilter,
  options: ListOptions = {},
): Run[] {
  // One upper bound on id (the cursor or the date range's end, whichever is lower): given
  // two, SQLite may range on the looser one and filter every row above the other.
  let below = options.before_id ?? Number.MAX_SAFE_INTEGER;
  let atLeast = 0;
  if (filter.from !== undefined || filter.to !== undefined) {
    const { lo, hi } = idBounds(prepare, filter);
    if (lo > hi) return [];
    below = Math.min(below, hi + 1);
    atLeast = lo;
  }
  const where: string[] = ["id < ?"];
  const args: (string | number)[] = [below];
  if (atLeast > 0) {
    where.push("id >= ?");
    args.push(atLeast);
  }
  if (filter.job_id !== undefined) {
    where.push("job_id = ?");
    args.push(filter.job_id);
  }
  if (filter.status !== undefined) {
    where.push("status = ?");
    args.push(filter.status);
  }
  if (filter.class !== undefined) {
    where.push("class = ?");
    args.push(filter.class);
  }
  if (filter.from !== undefined) {
    where.push("queued_at >= ?");
    args.push(filter.from);
  }
  if (filter.to !== undefined) {
    where.push("queued_at < ?");
    args.push(filter.to);
  }
  args.push(limitOf(options));
  return prepare(runHistorySql(filter, where)).all(...args).map((r) => toRun(r as Row));
}

/** The statement text of a run history page (exported for the query-plan test). */
export function runHistorySql(filter: RunFilter, where: string[]): string {
  const index = runIndexFor(filter);
  // NOT INDEXED still allows the rowid: no date index may turn the page into a sort.
  const from = index === null ? "runs NOT INDEXED" : `runs INDEXED BY ${index}`;
  return `SELECT * FROM ${from} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`;
}

export function runsPerHour(prepare: Prepare, since: string): HourCount[] {
  // The run_hours rollup (migration 004), kept by triggers: at most hours × classes ×
  // statuses rows, whatever the number of runs.
  return prepare(
    `SELECT hour, status AS key, SUM(runs) AS n FROM run_hours
      WHERE hour >= ? AND runs > 0 GROUP BY hour, status ORDER BY hour, key`,
  ).all(since.slice(0, 13)).map((r) => plain<HourCount>(r));
}

export function tokensPerHour(prepare: Prepare, since: string): HourCount[] {
  return prepare(
    `SELECT hour, class AS key, SUM(tokens) AS n FROM run_hours
      WHERE hour >= ? AND tokens > 0 GROUP BY hour, class ORDER BY hour, key`,
  ).all(since.slice(0, 13)).map((r) => plain<HourCount>(r));
}

/** Sum of tokens_in + tokens_out of a class's runs finished at or after `since`. */
export function tokensSince(prepare: Prepare, cls: JobClass, since: string): number {
  const row = prepare(
    `SELECT COALESCE(SUM(COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0)), 0) AS n
       FROM runs WHERE class = ? AND finished_at >= ?
        AND (tokens_in IS NOT NULL OR tokens_out IS NOT NULL)`,
  ).get(cls, since) as { n: number };
  return row.n;
}

/**
 * The index that yields an audit filter's rows in id order (null: the rowid). With several
 * keys, the most selective one's index is read and the others are tested per row: a target
 * (one job, one memory file) has few rows, an action a share of them, a channel (chat, push,
 * the machine door; or the dashboard, nearly all) more, and an actor (the dashboard, a few
 * tokens) nearly all. Reading audit_actor for actor+target would walk every row the dashboard
 * ever wrote to find one file's.
 */
export function auditIndexFor(filter: AuditFilter): string | null {
  if (filter.target !== undefined) return "audit_target";
  if (filter.action !== undefined) return "audit_action";
  if (filter.channel !== undefined) return "audit_channel";
  if (filter.actor !== undefined) return "audit_actor";
  return null;
}

/**
 * The id range of audit rows in [from, to): one probe of audit_at per end, as idBounds does
 * for runs; the exact `at` test stays in the query.
 */
function auditIdBounds(prepare: Prepare, filter: AuditFilter): { lo: number; hi: number } {
  let lo = 0;
  let hi = Number.MAX_SAFE_INTEGER;
  if (filter.from !== undefined) {
    const first = prepare(
      `SELECT MIN(id) AS id FROM audit INDEXED BY audit_at WHERE at = (
         SELECT at FROM audit INDEXED BY audit_at WHERE at >= ? ORDER BY at LIMIT 1)`,
    ).get(filter.from) as { id: number | null };
    lo = first.id ?? Number.MAX_SAFE_INTEGER;
  }
  if (filter.to !== undefined) {
    const last = prepare(
      `SELECT MAX(id) AS id FROM audit INDEXED BY audit_at WHERE at = (
         SELECT at FROM audit INDEXED BY audit_at WHERE at < ? ORDER BY at DESC LIMIT 1)`,
    ).get(filter.to) as { id: number | null };
    hi = last.id ?? 0;
  }
  return { lo, hi };
}

export function listAudit(
  prepare: Prepare,
  options: ListOptions & AuditFilter = {},
): AuditRow[] {
  let below = options.before_id ?? Number.MAX_SAFE_INTEGER;
  let atLeast = 0;
  if (options.from !== undefined || options.to !== undefined) {
    const { lo, hi } = auditIdBounds(prepare, options);
    if (lo > hi) return [];
    below = Math.min(below, hi + 1);
    atLeast = lo;
  }
  const where: string[] = ["id < ?"];
  const args: (string | number)[] = [below];
  if (atLeast > 0) {
    where.push("id >= ?");
    args.push(atLeast);
  }
  if (options.from !== undefined) {
    where.push("at >= ?");
    args.push(options.from);
  }
  if (options.to !== undefined) {
    where.push("at < ?");
    args.push(options.to);
  }
  for (const key of ["action", "actor", "target", "channel"] as const) {
    const value = options[key];
    if (value !== undefined) {
      where.push(`${key} = ?`);
      args.push(value);
    }
  }
  args.push(limitOf(options));
  return prepare(auditSql(options, where)).all(...args).map(plain<AuditRow>);
}

/** The statement text of an audit page (exported for the query-plan test). */
export function auditSql(filter: AuditFilter, where: string[]): string {
  const index = auditIndexFor(filter);
  const from = index === null ? "audit" : `audit INDEXED BY ${index}`;
  return `SELECT * FROM ${from} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`;
}
