// Whether a reflection pass should run at all. Reflection is a second model call that costs a
// run time and tokens; a run that made no tool call and exchanged only a few short messages
// has nothing durable to record that its own turn did not already save. And a pass writes
// memory without asking anyone, so it runs only where memory edits need no approval.

import type { Message } from "../wires/types.ts";
import { decide, type PermissionMode } from "../agent/permissions.ts";

/**
 * Why the automatic reflection pass may not run in `mode`, or null in auto mode. Spec 4.1:
 * memory edits ask in strict mode and are denied while planning; a strict job is report-only.
 * The pass runs unattended (end of a headless run, or on quit), where nobody answers an
 * approval, so it is off rather than held: the run's own memory edits still ask as usual.
 */
export function reflectionModeSkipReason(mode: PermissionMode): string | null {
  switch (decide(mode, "edit")) {
    case "allow":
      return null;
    case "approval":
      return `${mode} mode: memory edits need approval`;
    case "deny":
      return `${mode} mode: memory edits are denied`;
  }
}

/** At most this much text (prompt plus answer) still counts as a short exchange. */
export const SHORT_EXCHANGE_CHARS = 2_000;

/** Why reflection has nothing to work on, or null when it should run. */
export function reflectionSkipReason(transcript: readonly Message[]): string | null {
  let chars = 0;
  let userTurns = 0;
  for (const message of transcript) {
    if (message.role === "user") userTurns++;
    for (const part of message.parts) {
      if (part.type === "tool_call" || part.type === "tool_result") return null;
      if (part.type === "text") chars += part.text.length;
    }
  }
  if (userTurns > 1 || chars > SHORT_EXCHANGE_CHARS) return null;
  return `a short exchange with no tool call (${chars} characters)`;
}
