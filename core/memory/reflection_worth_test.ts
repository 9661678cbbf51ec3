import assert from "node:assert/strict";
import { reflectionModeSkipReason } from "./reflection_worth.ts";

Deno.test("reflection runs only where memory edits need no approval (auto mode)", () => {
  assert.equal(reflectionModeSkipReason("auto"), null);
  assert.match(
    reflectionModeSkipReason("strict") ?? "",
    /^strict mode: memory edits need approval/,
  );
  assert.match(reflectionModeSkipReason("plan") ?? "", /^plan mode: memory edits are denied/);
});
