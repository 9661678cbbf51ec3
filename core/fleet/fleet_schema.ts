// The fleet's own tables (fleet_nodes, run_claims, fleet_outbox, run_files) are created by
// whichever node starts first, under the migrations' advisory lock so nodes starting at the
// same moment do not both create them.

import { type PgConnection, SCHEMA_LOCK_KEY } from "../store/pg/pg_connection.ts";

/**
 * Runs `ddl` (idempotent CREATE … IF NOT EXISTS statements) under the schema lock. Three
 * round trips, not one: statements sent together are one implicit transaction, and an unlock
 * sent with them would let go before the CREATEs commit, so a node starting at the same
 * moment would not see the tables and create them too (a duplicate-key error on pg_type).
 */
export function createFleetTables(connection: PgConnection, ddl: string): void {
  connection.exec(`SELECT pg_advisory_lock(${SCHEMA_LOCK_KEY})`);
  try {
    connection.exec(ddl);
  } finally {
    connection.exec(`SELECT pg_advisory_unlock(${SCHEMA_LOCK_KEY})`);
  }
}
