// Puts the push lane on the delivery seam: when VAPID_PRIVATE_KEY_FILE is set, a PushAdapter
// joins the other adapters (log, chat); without it nothing is registered and web-push is
// never loaded (the badge says dormant). The same key file feeds the badge.

import type { Delivery } from "../delivery/delivery.ts";
import type { Logger } from "../logger.ts";
import type { Clock, Env, Fetch } from "../ports.ts";
import { dnsResolver, type HostResolver, pushLoopbackAllowed } from "./endpoint_guard.ts";
import { PushAdapter, type PushAdapterOptions } from "./push_adapter.ts";
import type { VapidKeyFile } from "./vapid.ts";
import type { PublishGate } from "../publish/gate.ts";

export interface PushLaneOptions {
  delivery: Delivery;
  keys: VapidKeyFile;
  store: PushAdapterOptions["store"];
  env: Env;
  fetch: Fetch;
  clock: Clock;
  logger: Logger;
  /** The secret scanner every envelope passes first. */
  gate: PublishGate;
  /** Host lookups for the send-time SSRF check; Deno.resolveDns (A and AAAA) by default. */
  resolve?: HostResolver;
}

/** Registers the push adapter when the lane is configured; returns it (or null when dormant). */
export function registerPushLane(o: PushLaneOptions): PushAdapter | null {
  // One line at start-up, so an operator (and the whole-process test) can see which it is.
  if (!o.keys.configured) {
    o.logger.log("info", "push lane dormant: VAPID_PRIVATE_KEY_FILE is not set");
    return null;
  }
  const adapter = new PushAdapter({
    store: o.store,
    keys: () => o.keys.load(),
    fetch: o.fetch,
    resolve: o.resolve ?? dnsResolver,
    allowLoopback: pushLoopbackAllowed(o.env),
    clock: o.clock,
    logger: o.logger,
    gate: o.gate,
  });
  o.delivery.register(adapter);
  o.logger.log("info", "push lane on", { allow_loopback: pushLoopbackAllowed(o.env) });
  return adapter;
}
