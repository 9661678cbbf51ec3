// Row <-> record mapping for the SQLite store: column lists, JSON columns, plain objects.

import type { SQLInputValue } from "node:sqlite";
import type { Question } from "../tools/types.ts";
import type {
  InboxItem,
  InboxState,
  Job,
  JobClass,
  JobWithLatestRun,
  LatestRun,
  ListOptions,
  PushSubscription,
  Run,
  RunStatus,
} from "./store.ts";

export type Row = Record<string, SQLInputValue>;

export const RUN_COLUMNS = [
  "job_id",
  "status",
  "attempt",
  "exit_code",
  "reason",
  "queued_at",
  "not_before",
  "started_at",
  "finished_at",
  "pid",
  "pid_start",
  "report_path",
  "session_id",
  "tokens_in",
  "tokens_out",
  "cost_usd",
  "cancelled_at",
  "resume_of_run",
  "answer",
  "priority",
  "class",
  "model",
  "duration_ms",
  "done_reason",
  "stop_reason",
  "cache_read_tokens",
  "cache_write_tokens",
  "slot",
] as const;

/** Rows per multi-row run insert: 64 × 28 parameters (SQLite takes 32,766, PostgreSQL 65,535). */
export const INSERT_RUNS_MAX = 64;
const RUN_VALUES = `(${RUN_COLUMNS.map(() => "?").join(", ")})`;

const insertRunsText: string[] = [];

/** The insert of `n` runs (1..INSERT_RUNS_MAX; each count is prepared once and kept). */
export function insertRunsSql(n: number): string {
  return insertRunsText[n] ??= `INSERT INTO runs (${RUN_COLUMNS.join(", ")}) VALUES ${
    Array.from({ length: n }, () => RUN_VALUES).join(", ")
  }`;
}

/** A run's job never changes. */
export const RUN_PATCH_COLUMNS = RUN_COLUMNS.filter((c) => c !== "job_id");

/** Job columns stored as they are (schedule, enabled and meta are mapped). */
export const JOB_PLAIN_COLUMNS = [
  "name",
  "prompt",
  "workdir",
  "mode",
  "timeout_s",
  "max_retries",
  "token_budget",
  "priority",
  "output_surface",
  "base_url",
  "model",
  "provider_preset",
  "recipe_id",
  "recipe_version",
  "next_run_at",
  "class",
  "failure_count",
  "dead_letter_reason",
  "disabled_reason",
] as const;

/** node:sqlite rows have a null prototype; callers get ordinary objects. */
export function plain<T>(row: object): T {
  return { ...row } as T;
}

export function toRun(row: Row): Run {
  return {
    id: row.id as number,
    job_id: row.job_id as number,
    status: row.status as RunStatus,
    attempt: row.attempt as number,
    exit_code: row.exit_code as number | null,
    reason: row.reason as string | null,
    queued_at: row.queued_at as string,
    not_before: row.not_before as string | null,
    started_at: row.started_at as string | null,
    finished_at: row.finished_at as string | null,
    pid: row.pid as number | null,
    pid_start: row.pid_start as string | null,
    report_path: row.report_path as string | null,
    session_id: row.session_id as string | null,
    tokens_in: row.tokens_in as number | null,
    tokens_out: row.tokens_out as number | null,
    cost_usd: row.cost_usd as number | null,
    cancelled_at: row.cancelled_at as string | null,
    resume_of_run: row.resume_of_run as number | null,
    answer: row.answer as string | null,
    priority: row.priority as number,
    class: row.class as JobClass,
    model: (row.model ?? null) as string | null,
    duration_ms: (row.duration_ms ?? null) as number | null,
    done_reason: (row.done_reason ?? null) as string | null,
    stop_reason: (row.stop_reason ?? null) as string | null,
    cache_read_tokens: (row.cache_read_tokens ?? null) as number | null,
    cache_write_tokens: (row.cache_write_tokens ?? null) as number | null,
    slot: (row.slot ?? null) as string | null,
  };
}

export function limitOf(options: ListOptions): number {
  const n = options.limit ?? 100;
  return Number.isInteger(n) && n > 0 ? Math.min(n, 10_000) : 100;
}

/** The defined values of `source` under `columns`, ready to bind. */
export function pickColumns(source: object, columns: readonly string[]): Row {
  const row: Row = {};
  for (const col of columns) {
    const v = (source as Record<string, unknown>)[col];
    if (v !== undefined) row[col] = v as SQLInputValue;
  }
  return row;
}

export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== "string") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function toJob(row: Row): Job {
  return {
    id: row.id as number,
    name: row.name as string,
    prompt: row.prompt as string,
    schedule: {
      kind: row.schedule_kind as Job["schedule"]["kind"],
      expr: row.schedule_expr as string,
      tz: row.schedule_tz as string,
    },
    workdir: row.workdir as string,
    mode: row.mode as Job["mode"],
    timeout_s: row.timeout_s as number,
    max_retries: row.max_retries as number,
    token_budget: row.token_budget as number | null,
    priority: row.priority as number | null,
    output_surface: row.output_surface as Job["output_surface"],
    base_url: row.base_url as string,
    model: row.model as string,
    provider_preset: row.provider_preset as string,
    enabled: row.enabled === 1,
    recipe_id: row.recipe_id as string | null,
    recipe_version: row.recipe_version as number | null,
    next_run_at: row.next_run_at as string | null,
    class: row.class as JobClass,
    failure_count: row.failure_count as number,
    dead_letter_reason: row.dead_letter_reason as string | null,
    disabled_reason: row.disabled_reason as string | null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
    meta: parseJson<Record<string, unknown>>(row.meta, {}),
  };
}

/** A listJobs row: the job's columns plus its latest run's, prefixed `lr_`. */
export function toJobWithLatestRun(row: Row): JobWithLatestRun {
  const latest: LatestRun | null = row.lr_id === null ? null : {
    id: row.lr_id as number,
    status: row.lr_status as RunStatus,
    exit_code: row.lr_exit_code as number | null,
    attempt: row.lr_attempt as number,
    queued_at: row.lr_queued_at as string,
    finished_at: row.lr_finished_at as string | null,
  };
  return { ...toJob(row), latest_run: latest };
}

export function toInboxItem(row: Row): InboxItem {
  return {
    id: row.id as number,
    job_id: row.job_id as number,
    run_id: row.run_id as number,
    questions: parseJson<Question[]>(row.questions, []),
    state: row.state as InboxState,
    answer: row.answer as string | null,
    answered_via: row.answered_via as string | null,
    answered_at: row.answered_at as string | null,
    held_json: row.held_json as string | null,
    meta: parseJson<Record<string, unknown>>(row.meta, {}),
    created_at: row.created_at as string,
  };
}

export function toPush(row: Row): PushSubscription {
  return {
    endpoint: row.endpoint as string,
    keys: { p256dh: row.p256dh as string, auth: row.auth as string },
    created_at: row.created_at as string,
    last_success_at: row.last_success_at as string | null,
    failure_count: row.failure_count as number,
  };
}
