// The webhook door of trigger recipes: POST /hooks/github/<trigger id>. It sits outside the
// SSO gate and outside CSRF, like the machine door: the code host has no SSO session and no
// cookie, and each delivery is authenticated by the HMAC-SHA256 of its raw body under the
// trigger's secret (core/recipes/webhook.ts). It is also outside /api/, so the JSON body
// gate does not decode the body first: the signature is over the exact bytes received,
// read here up to WEBHOOK_BODY_MAX and no further.
// Before anything is read or written, each source address is held to
// WEBHOOK_PER_SOURCE_PER_MINUTE requests (the shared SlidingLimiter); refusals are audited
// through the burst tally in deps (one row per source and reason a minute, with a count).
// The source is the TCP peer: X-Forwarded-For is never read (anyone can write it). Behind a
// reverse proxy every sender shares the proxy's address (docs/dashboard-api.md).

import type { Context, Hono } from "hono";
import {
  type GithubDelivery,
  rateLimited,
  receiveGithubDelivery,
  tooLarge,
  WEBHOOK_BODY_MAX,
  WEBHOOK_PER_SOURCE_PER_MINUTE,
  type WebhookOutcome,
} from "../../core/recipes/webhook.ts";
import { SlidingLimiter } from "../../core/sliding_limiter.ts";
import type { AppDeps } from "../deps.ts";
import { readCapped } from "../http/capped_body.ts";
import { errorJson } from "../http/errors.ts";
import { ID, peerAddress } from "../http/request.ts";

/** Paths of the webhook door (exempt from CSRF: see server/http/csrf.ts). */
export const WEBHOOK_PREFIX = "/hooks/";

export function registerWebhookRoutes(app: Hono, deps: AppDeps): void {
  const ctx = {
    store: deps.store,
    jobs: deps.scheduler,
    secrets: deps.triggerSecrets,
    clock: deps.clock,
    logger: deps.logger,
    refusals: deps.webhookRefusals,
  };
  const limiter = new SlidingLimiter(deps.clock, WEBHOOK_PER_SOURCE_PER_MINUTE);
  app.post(`/hooks/github/:id{${ID}}`, async (c) => {
    const triggerId = Number(c.req.param("id"));
    const source = peerAddress(c);
    const admitted = limiter.take(source);
    if (!admitted.ok) {
      await c.req.raw.body?.cancel().catch(() => {});
      c.header("Retry-After", String(Math.ceil(admitted.retryInMs / 1000)));
      return answer(c, rateLimited(ctx, source, triggerId, admitted.retryInMs));
    }
    const body = await readCapped(c, WEBHOOK_BODY_MAX);
    const outcome = body === null ? tooLarge(ctx, source, triggerId) : await receiveGithubDelivery(
      ctx,
      {
        source,
        triggerId,
        signature: c.req.header("X-Hub-Signature-256"),
        event: c.req.header("X-GitHub-Event"),
        deliveryId: c.req.header("X-GitHub-Delivery"),
        body,
      } satisfies GithubDelivery,
    );
    if ("fired" in outcome) {
      deps.live.publish({ type: "job", job_id: outcome.fired.job_id, change: "created" });
    }
    return answer(c, outcome);
  });
}

function answer(c: Context, outcome: WebhookOutcome): Response {
  c.header("Cache-Control", "no-store");
  if ("fired" in outcome) return c.json({ fired: outcome.fired }, 202);
  if ("pong" in outcome) return c.json({ pong: true }, 200);
  if ("duplicate" in outcome) {
    return c.json({
      duplicate: true,
      ...outcome.duplicate,
      message: "this event already fired a run (a replay or a redelivery); nothing fired",
    }, 200);
  }
  return errorJson(c, outcome.status, outcome.code, outcome.message);
}
