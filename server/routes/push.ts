// Browser push subscriptions and the push badge (spec 2.8, 4.5): these routes keep the
// subscription records and report the lane's state; core/push/ sends. An endpoint is where
// the outpost will POST, so it passes the SSRF guard (core/push/endpoint_guard.ts) here and
// again, on every resolved address, at each send.

import type { Hono } from "hono";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import {
  checkEndpointUrl,
  EndpointRefusedError,
  pushLoopbackAllowed,
} from "../../core/push/endpoint_guard.ts";
import type { AppDeps } from "../deps.ts";
import { badInput } from "../http/errors.ts";
import { humanActor, readJsonObject } from "../http/request.ts";

const KEY_RE = /^[A-Za-z0-9_-]+={0,2}$/;

export function registerPushRoutes(app: Hono, deps: AppDeps): void {
  const actor = (c: Parameters<typeof humanActor>[0]) => humanActor(c, deps.trustedUserHeader);
  const allowLoopback = pushLoopbackAllowed(deps.env);

  app.get("/api/push/status", (c) => c.json(deps.pushStatus()));

  app.post("/api/push/subscribe", async (c) => {
    const body = await readJsonObject(c);
    for (const key of Object.keys(body)) {
      // Browsers' PushSubscription.toJSON() also carries expirationTime; accept and ignore it.
      if (key !== "endpoint" && key !== "keys" && key !== "expirationTime") {
        throw badInput(key, "unknown field; send the browser's subscription.toJSON()");
      }
    }
    const endpoint = checkEndpoint(body.endpoint, allowLoopback);
    const keys = body.keys;
    if (typeof keys !== "object" || keys === null || Array.isArray(keys)) {
      throw badInput("keys", "required: {p256dh, auth} from the browser subscription");
    }
    const k = keys as Record<string, unknown>;
    const p256dh = checkKey(k.p256dh, "keys.p256dh", 80, 100);
    const auth = checkKey(k.auth, "keys.auth", 16, 32);
    const sub = deps.store.upsertPushSubscription({ endpoint, keys: { p256dh, auth } });
    audit(deps.store, deps.logger, {
      action: AUDIT.pushSubscribe,
      target: `push:${new URL(endpoint).host}`,
      actor: actor(c),
      channel: "dashboard",
      detail: "device subscribed",
    });
    return c.json({ subscription: { endpoint: sub.endpoint, created_at: sub.created_at } }, 201);
  });

  app.post("/api/push/unsubscribe", async (c) => {
    const body = await readJsonObject(c);
    for (const key of Object.keys(body)) {
      if (key !== "endpoint") throw badInput(key, 'unknown field; send {"endpoint": "..."}');
    }
    // Any stored endpoint may be removed, even one the guard would refuse today.
    const endpoint = requiredEndpoint(body.endpoint);
    const removed = deps.store.deletePushSubscription(endpoint);
    if (removed) {
      audit(deps.store, deps.logger, {
        action: AUDIT.pushUnsubscribe,
        target: `push:${new URL(endpoint).host}`,
        actor: actor(c),
        channel: "dashboard",
        detail: "device unsubscribed",
      });
    }
    return c.json({ removed });
  });
}

function requiredEndpoint(value: unknown): string {
  if (typeof value !== "string" || value === "") {
    throw badInput("endpoint", "required: the push service URL of the subscription");
  }
  return value;
}

function checkEndpoint(value: unknown, allowLoopback: boolean): string {
  const endpoint = requiredEndpoint(value);
  try {
    checkEndpointUrl(endpoint, allowLoopback);
  } catch (err) {
    if (err instanceof EndpointRefusedError) throw badInput("endpoint", err.reason);
    throw err;
  }
  return endpoint;
}

function checkKey(value: unknown, field: string, min: number, max: number): string {
  if (
    typeof value !== "string" || !KEY_RE.test(value) || value.length < min || value.length > max
  ) {
    throw badInput(field, `expected a base64url string of ${min}..${max} characters`);
  }
  return value;
}
