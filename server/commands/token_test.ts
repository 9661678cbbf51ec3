import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { outpostDbPath, SqliteStore } from "../../core/store/sqlite_store.ts";
import { hashMachineToken } from "../http/machine_tokens.ts";
import { runToken } from "./token.ts";

function io(home: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      clock: new FakeClock("2026-03-02T09:00:00Z"),
      home,
    },
  };
}

Deno.test("token create prints the token once and stores only its hash; list and revoke", async () => {
  const home = await Deno.makeTempDir();
  try {
    const c = io(home);
    assert.equal(runToken(["create", "ci-bot"], c.io), 0);
    const token = c.out[0]!;
    assert.match(token, /^aop_/);
    assert.match(c.err[0]!, /shown only this once/);
    const store = new SqliteStore({ path: outpostDbPath(home), clock: new FakeClock() });
    try {
      const [row] = store.listMachineTokens();
      assert.equal(row!.name, "ci-bot");
      assert.equal(row!.token_hash, hashMachineToken(token));
      const bytes = await Deno.readFile(outpostDbPath(home));
      assert.equal(
        new TextDecoder().decode(bytes).includes(token),
        false,
        "the token itself is not stored",
      );
      assert.ok(store.verifyMachineToken(hashMachineToken(token)));
      assert.equal(store.listAudit({ action: "token_create" }).length, 1);
    } finally {
      store.close();
    }

    const l = io(home);
    assert.equal(runToken(["list"], l.io), 0);
    assert.equal(l.out.length, 2);
    assert.match(l.out[1]!, /^1\tci-bot\t2026-03-02T09:00:00Z\t2026-01-01T00:00:00Z\t-$/); // used once above
    assert.doesNotMatch(l.out.join("\n"), /aop_/);

    const r = io(home);
    assert.equal(runToken(["revoke", "1"], r.io), 0);
    assert.match(r.out[0]!, /token 1 \(ci-bot\) revoked/);
    const again = new SqliteStore({ path: outpostDbPath(home), clock: new FakeClock() });
    try {
      assert.equal(again.verifyMachineToken(hashMachineToken(token)), null);
    } finally {
      again.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("token: bad input is one line on stderr and exit 1", async () => {
  const home = await Deno.makeTempDir();
  try {
    for (
      const [args, pattern] of [
        [[], /missing subcommand/],
        [["create"], /name is required/],
        [["create", "a\u0007b"], /one line/],
        [["create", "x".repeat(101)], /at most 100/],
        [["revoke"], /token id/],
        [["revoke", "abc"], /token id/],
        [["revoke", "42"], /no machine token with id 42/],
        [["list", "extra"], /unexpected argument/],
        [["rotate"], /unknown subcommand/],
        [["--frobnicate"], /see --help/],
      ] as const
    ) {
      const c = io(home);
      assert.equal(runToken([...args], c.io), 1, args.join(" "));
      assert.equal(c.err.length, 1);
      assert.match(c.err[0]!, /^error: /);
      assert.match(c.err[0]!, pattern);
    }
    const h = io(home);
    assert.equal(runToken(["--help"], h.io), 0);
    assert.match(h.out.join("\n"), /shown ONCE|prints the new token ONCE/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
