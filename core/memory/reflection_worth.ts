// Whether an unattended run's reflection pass can find anything. Reflection is a second model
// call that costs a run time and tokens; a run that made no tool call and exchanged only a
// few short messages has nothing durable to record that its own turn did not already save.

import type { Message } from "../wires/types.ts";

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
