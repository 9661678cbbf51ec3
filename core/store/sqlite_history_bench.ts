// The /audit page with a combined filter (actor + target) on 20,000 audit rows: the index the
// store reads now (audit_target, the most selective key) against the one it read before
// (audit_actor, which walks the actor's rows to find the target's). Same statement shape as
// listAudit; only the INDEXED BY differs.

import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { auditIndexFor } from "./sqlite_history.ts";
import { outpostDbPath, SqliteStore } from "./sqlite_store.ts";

const home = await Deno.makeTempDir({ prefix: "outpost_history_bench_" });
new SqliteStore({ path: outpostDbPath(home), clock: new FakeClock("2026-03-02T09:00:00Z") })
  .close();
const db = new DatabaseSync(outpostDbPath(home));
{
  // As bench_outpost_http.ts fills it: four actions, 100 targets, two rows in three by the
  // dashboard.
  const ins = db.prepare(
    "INSERT INTO audit (at, action, target, actor, detail) VALUES (?, ?, ?, ?, 'bench')",
  );
  const actions = ["job_update", "job_trigger", "answer", "body_read"];
  db.exec("BEGIN");
  for (let i = 0; i < 20_000; i++) {
    ins.run("2026-03-02T09:00:00Z", actions[i % 4]!, `job:${i % 100}`, i % 3 ? "dashboard" : "ann");
  }
  db.exec("COMMIT");
}

const page = (index: string) =>
  db.prepare(
    `SELECT * FROM audit INDEXED BY ${index} WHERE id < ? AND actor = ? AND target = ?
      ORDER BY id DESC LIMIT 51`,
  );
const chosen = auditIndexFor({ actor: "dashboard", target: "job:7" })!;
const now = page(chosen);
const before = page("audit_actor");

Deno.bench(`audit actor+target page via ${chosen} (the store's choice)`, {
  group: "audit actor+target",
  baseline: true,
}, () => {
  now.all(Number.MAX_SAFE_INTEGER, "dashboard", "job:7");
});
Deno.bench("audit actor+target page via audit_actor (the old choice)", {
  group: "audit actor+target",
}, () => {
  before.all(Number.MAX_SAFE_INTEGER, "dashboard", "job:7");
});

globalThis.addEventListener("unload", () => {
  db.close();
  Deno.removeSync(home, { recursive: true });
});
