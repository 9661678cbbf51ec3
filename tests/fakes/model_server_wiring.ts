// Small helpers to point a wire at the fake model server in tests.

import type { WireKind } from "../../core/settings/types.ts";
import type {
  Endpoint,
  Message,
  WireEvent,
  WireOptions,
  WireRequest,
} from "../../core/wires/types.ts";
import type { FakeModelServer } from "./model_server.ts";

/** An Endpoint for the fake on the given wire (bearer auth, no key unless given). */
export function fakeEndpoint(
  fake: Pick<FakeModelServer, "url">,
  provider: WireKind,
  extra: Partial<Endpoint> = {},
): Endpoint {
  return { provider, base_url: fake.url, auth_style: "bearer", ...extra };
}

/** WireOptions with the defaults of spec 2.2 (adaptive thinking, strict tools off). */
export function defaultWireOptions(extra: Partial<WireOptions> = {}): WireOptions {
  return { thinking_type: "adaptive", strict_tools: false, ...extra };
}

/** Drains a wire stream into an array. */
export async function collectEvents(stream: AsyncIterable<WireEvent>): Promise<WireEvent[]> {
  const out: WireEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The closing `done` event of a drained stream (throws when it is missing). */
export function doneEvent(events: WireEvent[]): Extract<WireEvent, { type: "done" }> {
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error("no done event");
  return last;
}

export const userText = (text: string): Message => ({
  role: "user",
  parts: [{ type: "text", text }],
});

/** A minimal request: the `default` model, a short system prompt, one user turn, no tools. */
export const wireRequest = (extra: Partial<WireRequest> = {}): WireRequest => ({
  model: "default",
  system: "sys",
  messages: [userText("hi")],
  tools: [],
  ...extra,
});
