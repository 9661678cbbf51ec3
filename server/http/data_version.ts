// A cheap "has the store changed?" probe for response caches: a second, read-only SQLite
// connection to the store's file reads PRAGMA data_version, which changes whenever another
// connection (the store's, or a CLI such as `token create`) commits. No polling, no TTL:
// a cached body is reused only while nothing at all was committed since it was built.

import { DatabaseSync, type StatementSync } from "node:sqlite";

export interface DataVersion {
  /** Changes after every commit by any other connection to the database. */
  read(): number;
  close(): void;
}

/** null for an in-memory database (no other connection can see it). */
export function sqliteDataVersion(path: string): DataVersion | null {
  if (path === ":memory:" || path === "") return null;
  const db = new DatabaseSync(path, { readOnly: true });
  const stmt: StatementSync = db.prepare("PRAGMA data_version");
  return {
    read: () => (stmt.get() as { data_version: number }).data_version,
    close: () => {
      if (db.isOpen) db.close();
    },
  };
}
