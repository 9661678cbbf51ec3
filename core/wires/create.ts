// Builds the Wire for an endpoint. The only place that knows both implementations.

import type { WireFetch } from "../ports.ts";
import { ChatCompletionsWire } from "./chat_completions.ts";
import { MessagesWire } from "./messages.ts";
import type { WireDeps } from "./transport.ts";
import type { Endpoint, Wire, WireOptions } from "./types.ts";

export type { WireDeps } from "./transport.ts";

/**
 * `fetchFn` is the injected fetch; `deps` adds the clock (backoff, idle timeout), the retry
 * policy and the idle timeout. Tests pass a FakeClock so nothing waits for real.
 */
export function createWire(
  endpoint: Endpoint,
  options: WireOptions,
  fetchFn?: WireFetch,
  deps: Omit<WireDeps, "fetch"> = {},
): Wire {
  const all: WireDeps = fetchFn ? { ...deps, fetch: fetchFn } : deps;
  return endpoint.provider === "messages"
    ? new MessagesWire(endpoint, options, all)
    : new ChatCompletionsWire(endpoint, options, all);
}
