// Typed store errors. Messages name what was wrong and what to do about it.

export const MAX_JOBS = 100;

export class JobLimitError extends Error {
  override readonly name = "JobLimitError";
  readonly limit: number;
  constructor(limit = MAX_JOBS) {
    super(
      `job limit reached: at most ${limit} jobs may exist, scheduled and one-shot together; ` +
        `delete a job (finished one-shots give their slot back after their retention period, ` +
        `AGENT_OUTPOST_ONESHOT_RETENTION_DAYS) before creating another`,
    );
    this.limit = limit;
  }
}

export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
  readonly entity: string;
  readonly id: number | string;
  constructor(entity: string, id: number | string) {
    super(`no ${entity} with id ${id}`);
    this.entity = entity;
    this.id = id;
  }
}

export class InboxStateError extends Error {
  override readonly name = "InboxStateError";
  readonly id: number;
  readonly state: string;
  constructor(id: number, state: string, action: string) {
    super(`inbox item ${id} is ${state}, not open; it cannot be ${action}`);
    this.id = id;
    this.state = state;
  }
}

export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
  readonly path: string;
  readonly found: number;
  readonly supported: number;
  constructor(path: string, found: number, supported: number) {
    super(
      `${path} has schema version ${found}, newer than this program understands (${supported}); ` +
        `run a newer agent-outpost, or restore a backup made by this version`,
    );
    this.path = path;
    this.found = found;
    this.supported = supported;
  }
}

export class StoreOpenError extends Error {
  override readonly name = "StoreOpenError";
  readonly path: string;
  constructor(
    path: string,
    cause: unknown,
    hint = "check the file is a SQLite database and the directory is writable",
  ) {
    super(
      `cannot open the outpost store at ${path}: ${
        cause instanceof Error ? cause.message : cause
      }; ${hint}`,
      { cause },
    );
    this.path = path;
  }
}

/**
 * The store's database did not answer (a shared PostgreSQL restarting, a cut network): the
 * statement did not happen and may be tried again once it answers. SQLite never throws it.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}

/**
 * COMMIT was sent to a shared PostgreSQL and its reply was lost, and the server could not say
 * whether that transaction committed: its writes may or may not be there. Never retried by
 * the store (core/store/README.md, "A lost server").
 */
export class CommitUnknownError extends Error {
  override readonly name = "CommitUnknownError";
  constructor(xid: string, why: string, options?: ErrorOptions) {
    super(
      `PostgreSQL: the reply to COMMIT of transaction ${xid} was lost and whether it ` +
        `committed is unknown (${why}); check before repeating what it did`,
      options,
    );
  }
}

/**
 * The store refused a run because its (job, slot) already has a first attempt (migration 011's
 * unique index runs_fire_slot): SQLite names the columns, PostgreSQL the index.
 */
export function isDuplicateFire(err: unknown): boolean {
  const text = err instanceof Error ? err.message : String(err);
  return /runs_fire_slot|UNIQUE constraint failed: runs\.job_id, runs\.slot/.test(text);
}
