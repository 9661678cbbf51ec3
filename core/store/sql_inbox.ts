// The inbox's reads and state changes in the store. SqlStore runs the changes inside its
// transaction, so "is it still open?" and the update land as one step.

import { InboxStateError, NotFoundError } from "./errors.ts";
import type { Row, SqlStatement } from "./sql_connection.ts";
import { limitOf, toInboxItem } from "./sqlite_rows.ts";
import type { InboxItem, InboxState, ListOptions } from "./store.ts";

type Prepare = (sql: string) => SqlStatement;

export function getInboxItem(prepare: Prepare, id: number): InboxItem | null {
  const row = prepare("SELECT * FROM inbox_items WHERE id = ?").get(id) as Row | undefined;
  return row ? toInboxItem(row) : null;
}

export function listInbox(
  prepare: Prepare,
  options: ListOptions & { state?: InboxState },
): InboxItem[] {
  const before = options.before_id ?? Number.MAX_SAFE_INTEGER;
  const rows = options.state === undefined
    ? prepare("SELECT * FROM inbox_items WHERE id < ? ORDER BY id DESC LIMIT ?")
      .all(before, limitOf(options))
    : prepare("SELECT * FROM inbox_items WHERE state = ? AND id < ? ORDER BY id DESC LIMIT ?")
      .all(options.state, before, limitOf(options));
  return rows.map(toInboxItem);
}

export function countInbox(prepare: Prepare, state: InboxState): number {
  return (prepare("SELECT COUNT(*) AS n FROM inbox_items WHERE state = ?").get(state) as {
    n: number;
  }).n;
}

/** Open → answered or dismissed, the hold cleared. Throws InboxStateError unless open. */
export function closeInbox(
  prepare: Prepare,
  now: string,
  id: number,
  state: InboxState,
  answer: string | null,
  via: string,
): InboxItem {
  openItem(prepare, id, state);
  prepare(
    `UPDATE inbox_items SET state = ?, answer = ?, answered_via = ?, answered_at = ?,
            held_json = NULL WHERE id = ?`,
  ).run(state, answer, via, now, id);
  return getInboxItem(prepare, id)!;
}

export function setHold(prepare: Prepare, id: number, heldJson: string | null): InboxItem {
  const item = openItem(prepare, id, heldJson === null ? "unheld" : "held");
  prepare("UPDATE inbox_items SET held_json = ? WHERE id = ?").run(heldJson, item.id);
  return getInboxItem(prepare, id)!;
}

function openItem(prepare: Prepare, id: number, action: string): InboxItem {
  const item = getInboxItem(prepare, id);
  if (!item) throw new NotFoundError("inbox item", id);
  if (item.state !== "open") throw new InboxStateError(id, item.state, action);
  return item;
}
