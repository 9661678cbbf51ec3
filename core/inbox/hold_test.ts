import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { HOLD_TTL_DEFAULT_S, holdTtlMsFrom, liveHold, parseHold } from "./hold.ts";

const HOLD = JSON.stringify({
  verb: "approve",
  answer: "approved",
  sender: "@op:hs",
  room: "!r:hs",
  held_at: "2026-03-02T09:00:00Z",
});

Deno.test("AGENT_MATRIX_HOLD_TTL: default 3600 s, whole seconds, bad values name the variable", () => {
  assert.equal(holdTtlMsFrom(envFrom({})), HOLD_TTL_DEFAULT_S * 1000);
  assert.equal(holdTtlMsFrom(envFrom({ AGENT_MATRIX_HOLD_TTL: " " })), 3_600_000);
  assert.equal(holdTtlMsFrom(envFrom({ AGENT_MATRIX_HOLD_TTL: "90" })), 90_000);
  for (const bad of ["0", "-5", "1.5", "1h", "99999999"]) {
    assert.throws(
      () => holdTtlMsFrom(envFrom({ AGENT_MATRIX_HOLD_TTL: bad })),
      (e: Error) => e.name === "HoldConfigError" && /AGENT_MATRIX_HOLD_TTL/.test(e.message),
      bad,
    );
  }
});

Deno.test("parseHold reads well-formed holds and rejects anything else", () => {
  assert.equal(parseHold(HOLD)!.room, "!r:hs");
  for (
    const bad of [
      null,
      "",
      "{",
      "[]",
      "42",
      '{"verb":"approve"}',
      HOLD.replace("2026-03-02T09:00:00Z", "soon"),
    ]
  ) {
    assert.equal(parseHold(bad), null, String(bad));
  }
});

Deno.test("liveHold: live strictly before held_at + TTL, absent from then on", () => {
  const ttl = 60_000;
  assert.equal(
    liveHold(HOLD, new Date("2026-03-02T09:00:59.999Z"), ttl)!.expires_at,
    "2026-03-02T09:01:00Z",
  );
  assert.equal(liveHold(HOLD, new Date("2026-03-02T09:01:00Z"), ttl), null);
  assert.equal(liveHold(null, new Date("2026-03-02T09:00:00Z"), ttl), null);
});
