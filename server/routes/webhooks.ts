// The webhook door of trigger recipes: POST /hooks/github/<trigger id>. It sits outside the
// SSO gate and outside CSRF, like the machine door: the code host has no SSO session and no
// cookie, and each delivery is authenticated by the HMAC-SHA256 of its raw body under the
// trigger's secret (core/recipes/webhook.ts). It is also outside /api/, so the JSON body
// gate does not decode the body first: the signature is over the exact bytes received,
// read here up to WEBHOOK_BODY_MAX and no further.

import type { Context, Hono } from "hono";
import {
  type GithubDelivery,
  receiveGithubDelivery,
  tooLarge,
  WEBHOOK_BODY_MAX,
  type WebhookOutcome,
} from "../../core/recipes/webhook.ts";
import type { AppDeps } from "../deps.ts";
import { readCapped } from "../http/capped_body.ts";
import { errorJson } from "../http/errors.ts";
import { ID } from "../http/request.ts";

/** Paths of the webhook door (exempt from CSRF: see server/http/csrf.ts). */
export const WEBHOOK_PREFIX = "/hooks/";

export function registerWebhookRoutes(app: Hono, deps: AppDeps): void {
  const ctx = {
    store: deps.store,
    jobs: deps.scheduler,
    secrets: deps.triggerSecrets,
    clock: deps.clock,
    logger: deps.logger,
  };
  app.post(`/hooks/github/:id{${ID}}`, async (c) => {
    const triggerId = Number(c.req.param("id"));
    const body = await readCapped(c, WEBHOOK_BODY_MAX);
    const outcome = body === null ? tooLarge(ctx, triggerId) : await receiveGithubDelivery(
      ctx,
      {
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
  return errorJson(c, outcome.status, outcome.code, outcome.message);
}
