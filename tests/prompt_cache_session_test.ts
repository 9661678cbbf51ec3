// A 20-turn tool session (scripts/bench_cache.ts's) run by the agent's loop against the fake
// model server's prompt cache (tests/fakes/prompt_cache.ts): on both wires at least 90 % of
// the prompt tokens sent are read from the cache, memory reminder or not (issue 29).

import assert from "node:assert/strict";
import { cachedShare, runSession } from "../scripts/bench_cache.ts";

for (const wire of ["messages", "chat_completions"] as const) {
  Deno.test(`${wire}: a 20-turn tool session reads at least 90 % of its prompts from the cache`, async () => {
    for (const reminder of [false, true]) {
      const figures = await runSession(wire, 20, reminder);
      assert.equal(figures.requests, 21);
      const share = cachedShare(figures.usage);
      assert.ok(share >= 0.9, `${reminder ? "with" : "without"} a reminder: ${share}`);
    }
  });
}
