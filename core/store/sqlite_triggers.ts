// TriggerStore on the store's connection (core/store/triggers.ts), SQLite or PostgreSQL.
// Shares the connection of SqlStore, so store.atomically() covers its writes too.

import type { SqlConnection } from "./sql_connection.ts";
import { NotFoundError } from "./errors.ts";
import type { NewTrigger, RecipeTrigger, SeenEvent, TriggerStore } from "./triggers.ts";

type Row = Record<string, unknown>;

function toTrigger(row: Row): RecipeTrigger {
  return {
    id: row.id as number,
    recipe_id: row.recipe_id as string,
    recipe_version: row.recipe_version as number,
    source: row.source as RecipeTrigger["source"],
    repo: row.repo as string,
    name: row.name as string,
    prompt: row.prompt as string,
    job: JSON.parse(row.job as string),
    config: JSON.parse(row.config as string),
    salt: row.salt as string,
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason as string | null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

export class SqliteTriggerStore implements TriggerStore {
  readonly #db: SqlConnection;
  readonly #now: () => string;

  constructor(db: SqlConnection, now: () => string) {
    this.#db = db;
    this.#now = now;
  }

  create(t: NewTrigger): RecipeTrigger {
    const now = this.#now();
    const row = this.#db.prepare(
      `INSERT INTO recipe_triggers (recipe_id, recipe_version, source, repo, name, prompt, job,
         config, salt, enabled, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING *`,
    ).get(
      t.recipe_id,
      t.recipe_version,
      t.source,
      t.repo,
      t.name,
      t.prompt,
      JSON.stringify(t.job),
      JSON.stringify(t.config),
      t.salt,
      now,
      now,
    ) as Row;
    return toTrigger(row);
  }

  get(id: number): RecipeTrigger | null {
    const row = this.#db.prepare("SELECT * FROM recipe_triggers WHERE id = ?").get(id) as
      | Row
      | undefined;
    return row ? toTrigger(row) : null;
  }

  list(): RecipeTrigger[] {
    return (this.#db.prepare("SELECT * FROM recipe_triggers ORDER BY id DESC").all() as Row[])
      .map(toTrigger);
  }

  setEnabled(id: number, enabled: boolean, reason?: string): RecipeTrigger {
    const row = this.#db.prepare(
      "UPDATE recipe_triggers SET enabled = ?, disabled_reason = ?, updated_at = ? " +
        "WHERE id = ? RETURNING *",
    ).get(enabled ? 1 : 0, enabled ? null : reason ?? "disabled", this.#now(), id) as
      | Row
      | undefined;
    if (!row) throw new NotFoundError("trigger", id);
    return toTrigger(row);
  }

  recordDelivery(triggerId: number, deliveryId: string, forgetBefore: string): boolean {
    this.#db.prepare("DELETE FROM trigger_deliveries WHERE received_at < ?").run(forgetBefore);
    const result = this.#db.prepare(
      "INSERT OR IGNORE INTO trigger_deliveries (trigger_id, delivery_id, received_at) " +
        "VALUES (?, ?, ?)",
    ).run(triggerId, deliveryId, this.#now());
    return Number(result.changes) === 1;
  }

  setDeliveryJob(triggerId: number, deliveryId: string, jobId: number): void {
    this.#db.prepare(
      "UPDATE trigger_deliveries SET job_id = ? WHERE trigger_id = ? AND delivery_id = ?",
    ).run(jobId, triggerId, deliveryId);
  }

  recordEvent(
    triggerId: number,
    eventKey: string,
    deliveryId: string,
    forgetBefore: string,
  ): SeenEvent | null {
    this.#db.prepare("DELETE FROM trigger_events WHERE received_at < ?").run(forgetBefore);
    const seen = this.#db.prepare(
      "SELECT delivery_id, received_at, job_id FROM trigger_events " +
        "WHERE trigger_id = ? AND event_key = ?",
    ).get(triggerId, eventKey) as SeenEvent | undefined;
    if (seen) return { ...seen };
    this.#db.prepare(
      "INSERT INTO trigger_events (trigger_id, event_key, delivery_id, received_at) " +
        "VALUES (?, ?, ?, ?)",
    ).run(triggerId, eventKey, deliveryId, this.#now());
    return null;
  }

  setEventJob(triggerId: number, eventKey: string, jobId: number): void {
    this.#db.prepare(
      "UPDATE trigger_events SET job_id = ? WHERE trigger_id = ? AND event_key = ?",
    ).run(jobId, triggerId, eventKey);
  }
}
