// The fleet's chat outbox (issue 32: "chat replies are sent once"). Only the node that holds
// the Matrix bot's lock runs a bot (pg_leader.ts), but any node may emit the event a chat notice
// is made of: the node that ran a run emits its inbox item, report or alert, and any node's
// dashboard may confirm a held chat command, whose reply goes to the room. So in a fleet no
// node hands those to a bot of its own: every node writes them here, and the bot's node takes
// them out and posts each once. Taking deletes the rows in one statement, with SKIP
// LOCKED, so a row is taken by one node at most: a notice is posted at most once, and is lost
// only when the bot's node dies between taking and posting it (as a single box killed mid-post
// loses it). Rows hold the event's sanitized text for the seconds until the bot's node takes
// them; the secret scanner runs on that node, in the bot's post, as on a single box.

import type { DeliveryEvent } from "../delivery/types.ts";
import type { PgConnection } from "../store/pg/pg_connection.ts";

/** What the bot's node is handed: an event for its delivery adapter, or a reply to post. */
export type OutboxEntry =
  | { event: DeliveryEvent }
  | { notice: { room: string; text: string } };

/** Created with the fleet's other tables (pg_fleet.ts), under its schema lock. */
export const OUTBOX_SCHEMA = `
CREATE TABLE IF NOT EXISTS fleet_outbox (
  id BIGSERIAL PRIMARY KEY,
  from_node TEXT COLLATE "C" NOT NULL,
  event TEXT NOT NULL,
  queued_at TIMESTAMPTZ NOT NULL DEFAULT now()
);`;

/** How many events one take hands over at most (the rest wait for the next). */
const TAKE_LIMIT = 50;

export class PgOutbox {
  readonly #connection: PgConnection;
  readonly #nodeId: string;

  constructor(connection: PgConnection, nodeId: string) {
    this.#connection = connection;
    this.#nodeId = nodeId;
  }

  /** Queues a chat-bound event or reply for the bot's node. */
  put(entry: OutboxEntry): void {
    this.#connection.prepare("INSERT INTO fleet_outbox (from_node, event) VALUES (?, ?)")
      .run(this.#nodeId, JSON.stringify(entry));
  }

  /** Takes the oldest queued entries, oldest first; each is taken by one caller only. */
  take(): OutboxEntry[] {
    const rows = this.#connection.prepare(
      `DELETE FROM fleet_outbox WHERE id IN (
         SELECT id FROM fleet_outbox ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING id, event`,
    ).all(TAKE_LIMIT) as { id: number; event: string }[];
    return rows.sort((a, b) => Number(a.id) - Number(b.id))
      .map((r) => JSON.parse(r.event) as OutboxEntry);
  }
}
