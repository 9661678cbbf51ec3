// A run's report and process-log tail, copied into the shared database by the node that ran it
// (issue 32, docs/fleet.md "Reports and logs"), so another node's run page can show them: the
// files themselves stay under the running node's <home>/outpost/runs. PostgreSQL only: a
// single box reads its own files. The copy is what the run page would show of the files (cut
// at the page's bounds, with its notes) after the secret scan; the caller makes it
// (server/fleet_wiring.ts), this file keeps it.
//
//   run_files  one row per finished run that was copied: the node that ran it, the report and
//              the log tail (either may be null) with the notes that go with them. Deleted with
//              its run (retention, a deleted job): it never outlives what it describes.

import { createFleetTables } from "./fleet_schema.ts";
import type { PgStore } from "../store/pg/pg_store.ts";

/** Created on first start of any node (idempotent; under the migration lock). */
const RUN_FILES_SCHEMA = `
CREATE TABLE IF NOT EXISTS run_files (
  run_id BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  node_id TEXT COLLATE "C" NOT NULL,
  report TEXT,
  report_note TEXT,
  log TEXT,
  log_note TEXT,
  stored_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

/** What another node's run page shows instead of the files. */
export interface RunFilesCopy {
  report: string | null;
  report_note: string | null;
  log: string | null;
  log_note: string | null;
}

/** Where a run ran, for a page on another node. */
export interface RunPlace {
  node_id: string;
  /** That node's dashboard URL (fleet_nodes.url); "" when it never said. */
  url: string;
  /** The copy it stored when the run finished; null when there is none (yet). */
  copy: RunFilesCopy | null;
}

export class PgRunFiles {
  readonly #store: PgStore;

  constructor(store: PgStore) {
    this.#store = store;
    createFleetTables(store.connection, RUN_FILES_SCHEMA);
  }

  /** Stores (or replaces) the copy of run `runId`'s files, made by node `nodeId`. */
  keep(runId: number, nodeId: string, copy: RunFilesCopy): void {
    this.#store.connection.prepare(
      `INSERT INTO run_files (run_id, node_id, report, report_note, log, log_note)
         SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?)
       ON CONFLICT (run_id) DO UPDATE SET node_id = excluded.node_id,
         report = excluded.report, report_note = excluded.report_note, log = excluded.log,
         log_note = excluded.log_note, stored_at = now()`,
    ).run(runId, nodeId, copy.report, copy.report_note, copy.log, copy.log_note, runId);
  }

  /**
   * The node that ran run `runId`, its URL and the copy it stored; null when this node
   * (`self`) ran it or nobody can say (a run never claimed, or settled by a takeover).
   */
  place(runId: number, self: string): RunPlace | null {
    const row = this.#store.connection.prepare(
      `SELECT COALESCE(f.node_id, c.node_id) AS node_id, COALESCE(n.url, '') AS url,
              f.run_id IS NOT NULL AS copied, f.report, f.report_note, f.log, f.log_note
         FROM (SELECT ?::bigint AS run_id) r
         LEFT JOIN run_files f ON f.run_id = r.run_id
         LEFT JOIN run_claims c ON c.run_id = r.run_id
         LEFT JOIN fleet_nodes n ON n.node_id = COALESCE(f.node_id, c.node_id)`,
    ).get(runId);
    if (!row || row.node_id === null || row.node_id === self) return null;
    const copy: RunFilesCopy | null = row.copied
      ? {
        report: row.report as string | null,
        report_note: row.report_note as string | null,
        log: row.log as string | null,
        log_note: row.log_note as string | null,
      }
      : null;
    return { node_id: String(row.node_id), url: String(row.url), copy };
  }
}
