// Which store an outpost opens, and the refusals: a URL that is not postgres://, a server that
// does not answer (the message names the URL without its password), a database whose schema
// is newer than this program (refused before anything is written, as on SQLite).

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { freshDatabaseUrl } from "../../tests/pg_cluster.ts";
import { envFrom } from "../ports.ts";
import { databaseUrlFrom, openStore } from "./open_store.ts";
import { PG_MIGRATIONS } from "./pg/pg_migrations.ts";
import { PgStore } from "./pg/pg_store.ts";
import { SqliteStore } from "./sqlite_store.ts";

Deno.test("no AGENT_OUTPOST_DATABASE_URL: the SQLite file beside the outpost", async () => {
  const home = await Deno.makeTempDir();
  try {
    const opened = await openStore({ home, clock: new FakeClock(), env: envFrom({}) });
    assert.equal(opened.kind, "sqlite");
    assert.ok(opened.store instanceof SqliteStore);
    assert.equal(opened.where, `${home}/outpost/outpost.db`);
    opened.store.close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a database URL that is not postgres:// is refused with one clear line", () => {
  const url = (v: string) => databaseUrlFrom(envFrom({ AGENT_OUTPOST_DATABASE_URL: v }));
  assert.equal(url(""), null);
  assert.equal(url("postgresql://u@h/db"), "postgresql://u@h/db");
  assert.throws(() => url("mysql://u@h/db"), /must be a postgres:\/\/ URL, got mysql:\/\//);
  assert.throws(
    () => url("not a url"),
    /is not a URL \(expected postgres:\/\/user@host:port\/db\)/,
  );
});

Deno.test("a server that does not answer: StoreOpenError naming the URL, never its password", () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now
  assert.throws(
    () =>
      new PgStore({
        url: `postgres://outpost:s3cret-pw@127.0.0.1:${port}/outpost`,
        clock: new FakeClock(),
      }),
    (err: Error) => {
      assert.equal(err.name, "StoreOpenError");
      assert.match(err.message, /postgres:\/\/outpost:\*\*\*@127\.0\.0\.1/);
      assert.match(err.message, /check the server is up/);
      assert.doesNotMatch(err.message, /s3cret-pw/);
      return true;
    },
  );
});

peerTest(
  "a PostgreSQL schema newer than this program is refused and left untouched",
  probes.postgres,
  () => {
    const url = freshDatabaseUrl(); // migrated to the last step
    const last = PG_MIGRATIONS.at(-1)!.version;
    assert.throws(
      () => new PgStore({ url, clock: new FakeClock(), migrations: PG_MIGRATIONS.slice(0, 5) }),
      (err: Error) => {
        assert.equal(err.name, "SchemaTooNewError");
        assert.match(err.message, new RegExp(`schema version ${last}, newer than .* \\(5\\)`));
        return true;
      },
    );
    const store = new PgStore({ url, clock: new FakeClock() }); // this program: opens as it was
    assert.equal(store.countJobs(), 0);
    store.close();
    return Promise.resolve();
  },
);
