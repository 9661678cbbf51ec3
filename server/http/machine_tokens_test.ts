import assert from "node:assert/strict";
import { generateMachineToken, hashMachineToken, looksLikeMachineToken } from "./machine_tokens.ts";

Deno.test("machine tokens: aop_ + 256 random bits, hashed with SHA-256 hex", () => {
  const a = generateMachineToken();
  const b = generateMachineToken();
  assert.notEqual(a, b);
  assert.ok(looksLikeMachineToken(a));
  assert.equal(a.length, 47);
  assert.equal(
    hashMachineToken("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.match(hashMachineToken(a), /^[0-9a-f]{64}$/);
  for (const bad of ["", "aop_", "aop_short", `xyz_${"A".repeat(43)}`, `aop_${"A".repeat(43)} `]) {
    assert.equal(looksLikeMachineToken(bad), false, bad);
  }
});
