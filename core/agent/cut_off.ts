// Tool calls the loop must not run: arguments that did not parse (the wire's safety net
// turned them into {}), or any call of a reply that max_tokens cut off. The model gets a
// tool error saying what arrived, so it can send the call again instead of being told that
// a parameter it did send is missing.

import type { StopReason, ToolCallPart } from "../wires/types.ts";

/** How many characters of the received arguments the model is shown. */
const EXCERPT_CHARS = 200;

/** Why `call` is not run (the tool error's text), or null when it may run. */
export function notRunReason(call: ToolCallPart, stop: StopReason): string | null {
  const raw = call.raw_arguments;
  if (stop === "max_tokens") {
    return raw !== undefined
      ? `Not run: the arguments of this ${call.name} call were cut off by max_tokens (the ` +
        `reply reached its output limit) after ${received(raw)}. Call it again with the ` +
        `complete arguments; if the limit keeps cutting it, make the call smaller.`
      : `Not run: the reply was cut off by max_tokens (its output limit), so this ` +
        `${call.name} call may be incomplete. Call it again if it is still needed.`;
  }
  if (raw === undefined) return null;
  return `Not run: the arguments of this ${call.name} call are not valid JSON (one JSON ` +
    `object was expected); received ${received(raw)}. Call it again with the arguments as ` +
    `one JSON object.`;
}

function received(raw: string): string {
  const bytes = new TextEncoder().encode(raw).length;
  const excerpt = raw.length > EXCERPT_CHARS ? `${raw.slice(0, EXCERPT_CHARS)}…` : raw;
  return `${bytes} bytes: ${JSON.stringify(excerpt)}`;
}
