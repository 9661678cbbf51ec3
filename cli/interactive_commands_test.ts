import assert from "node:assert/strict";
import { COMMANDS, parseCommand } from "./interactive_commands.ts";

Deno.test("commands parse into a lower-case name and the rest", () => {
  assert.deepEqual(parseCommand("/model"), { name: "model", arg: "" });
  assert.deepEqual(parseCommand("/Model  gpt-5[1m] "), { name: "model", arg: "gpt-5[1m]" });
  assert.deepEqual(parseCommand("/memory init"), { name: "memory", arg: "init" });
  assert.deepEqual(parseCommand("/effort\thigh"), { name: "effort", arg: "high" });
});

Deno.test("every session command of the spec is listed in /help", () => {
  const names = COMMANDS.map((c) => c.name);
  for (const n of ["model", "providers", "effort", "cost", "tokens", "reload", "memory", "exit"]) {
    assert.ok(names.includes(n), n);
  }
  assert.ok(COMMANDS.find((c) => c.name === "exit")!.usage.includes("/quit"));
});
