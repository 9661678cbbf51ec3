// Push subscriptions and machine-door tokens in the store (small tables, one statement or two
// each). SqlStore delegates to these; `now` is the store's clock as ISO-Z text.

import { NotFoundError } from "./errors.ts";
import type { SqlStatement } from "./sql_connection.ts";
import { plain, type Row, toPush } from "./sqlite_rows.ts";
import type { MachineToken, PushSubscription } from "./store.ts";

type Prepare = (sql: string) => SqlStatement;

export function upsertPushSubscription(
  prepare: Prepare,
  now: string,
  sub: { endpoint: string; keys: { p256dh: string; auth: string } },
): PushSubscription {
  prepare(
    `INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth,
       failure_count = 0`,
  ).run(sub.endpoint, sub.keys.p256dh, sub.keys.auth, now);
  return toPush(
    prepare("SELECT * FROM push_subscriptions WHERE endpoint = ?").get(sub.endpoint) as Row,
  );
}

export function listPushSubscriptions(prepare: Prepare): PushSubscription[] {
  return prepare("SELECT * FROM push_subscriptions ORDER BY created_at, endpoint").all()
    .map(toPush);
}

export function deletePushSubscription(prepare: Prepare, endpoint: string): boolean {
  return Number(
    prepare("DELETE FROM push_subscriptions WHERE endpoint = ?").run(endpoint).changes,
  ) >
    0;
}

export function recordPushResult(
  prepare: Prepare,
  now: string,
  endpoint: string,
  ok: boolean,
): void {
  if (ok) {
    prepare(
      "UPDATE push_subscriptions SET last_success_at = ?, failure_count = 0 WHERE endpoint = ?",
    ).run(now, endpoint);
  } else {
    prepare(
      "UPDATE push_subscriptions SET failure_count = failure_count + 1 WHERE endpoint = ?",
    ).run(endpoint);
  }
}

export function listMachineTokens(prepare: Prepare): MachineToken[] {
  return prepare("SELECT * FROM machine_tokens ORDER BY id").all().map(plain<MachineToken>);
}

export function revokeMachineToken(prepare: Prepare, now: string, id: number): MachineToken {
  prepare("UPDATE machine_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?")
    .run(now, id);
  const token = machineToken(prepare, id);
  if (!token) throw new NotFoundError("machine token", id);
  return token;
}

export function verifyMachineToken(
  prepare: Prepare,
  now: string,
  tokenHash: string,
): MachineToken | null {
  const row = prepare(
    "SELECT id FROM machine_tokens WHERE token_hash = ? AND revoked_at IS NULL",
  ).get(tokenHash) as { id: number } | undefined;
  if (!row) return null;
  prepare("UPDATE machine_tokens SET last_used_at = ? WHERE id = ?").run(now, row.id);
  return machineToken(prepare, row.id);
}

function machineToken(prepare: Prepare, id: number): MachineToken | null {
  const row = prepare("SELECT * FROM machine_tokens WHERE id = ?").get(id);
  return row ? plain<MachineToken>(row) : null;
}
