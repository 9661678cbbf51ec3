// A code-host delivery to a recipe trigger (issue-triage): authenticated by the HMAC of the
// raw body, then checked for event, delivery id, payload and repository, then fired as one
// api-class one-shot whose prompt is the trigger's frozen prompt plus the issue as untrusted
// data. Every refusal is an outcome with a status and an audit row, and fires nothing.
// The order matters: nothing about the trigger (enabled or not, delivery ids seen) is
// revealed or recorded before the signature checks out.

import { audit } from "../audit/audit.ts";
import { jsonDepthRefusal } from "../json_depth.ts";
import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import { CapacityError } from "../governor/errors.ts";
import { type JobStamp, JobValidationError } from "../scheduler/job_input.ts";
import { JobLimitError } from "../store/errors.ts";
import type { Job, Run, Store } from "../store/store.ts";
import type { RecipeTrigger } from "../store/triggers.ts";
import { AUDIT_RECIPES } from "./audit_actions.ts";
import {
  IssuePayloadError,
  type OpenedIssue,
  parseOpenedIssue,
  promptWithIssue,
} from "./issue_event.ts";
import { type TriggerSecrets, verifyGithubSignature } from "./trigger_secret.ts";

/** Largest delivery accepted (GitHub's issue payloads are a few KB; its own cap is 25 MB). */
export const WEBHOOK_BODY_MAX = 1024 * 1024;
/** Delivery ids are remembered this long for replay detection. */
export const DELIVERY_MEMORY_DAYS = 30;

export interface OneShotMaker {
  submitOneShot(raw: unknown, stamp?: JobStamp): { job: Job; run: Run };
}

export interface WebhookContext {
  store: Store;
  jobs: OneShotMaker;
  secrets: TriggerSecrets;
  clock: Clock;
  logger: Logger;
}

export interface GithubDelivery {
  triggerId: number;
  signature: string | undefined;
  event: string | undefined;
  deliveryId: string | undefined;
  body: Uint8Array;
}

export type WebhookOutcome =
  | { status: 202; fired: { job_id: number; run_id: number } }
  | { status: 200; pong: true }
  | { status: 400 | 401 | 404 | 409 | 413 | 422 | 503; code: string; message: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The refusal of a body over WEBHOOK_BODY_MAX (the route stops reading at the cap). */
export function tooLarge(ctx: WebhookContext, triggerId: number): WebhookOutcome {
  return refuse(
    ctx,
    triggerId,
    undefined,
    413,
    "payload_too_large",
    `delivery body over ${WEBHOOK_BODY_MAX} bytes`,
  );
}

export async function receiveGithubDelivery(
  ctx: WebhookContext,
  d: GithubDelivery,
): Promise<WebhookOutcome> {
  const no = (status: Refusal["status"], code: string, message: string) =>
    refuse(ctx, d.triggerId, d.deliveryId, status, code, message);
  const trigger = ctx.store.triggers.get(d.triggerId);
  if (!trigger) return no(404, "not_found", `no trigger ${d.triggerId}`);
  const secret = await ctx.secrets.secretFor(trigger.id, trigger.salt);
  if (!verifyGithubSignature(secret, d.body, d.signature)) {
    return no(
      401,
      "bad_signature",
      "X-Hub-Signature-256 is missing or is not the HMAC-SHA256 of the body under this " +
        "trigger's secret",
    );
  }
  if (!trigger.enabled) {
    return no(
      409,
      "trigger_disabled",
      `trigger ${trigger.id} is disabled (${trigger.disabled_reason ?? "disabled"}); nothing fired`,
    );
  }
  if (d.event === "ping") {
    audit(ctx.store, ctx.logger, {
      action: AUDIT_RECIPES.webhookRefused,
      target: `trigger:${trigger.id}`,
      actor: "webhook:github",
      detail: `ping delivery ${shortId(d.deliveryId)} answered; nothing fired`,
    });
    return { status: 200, pong: true };
  }
  if (d.event !== "issues") {
    return no(
      422,
      "event_not_accepted",
      `X-GitHub-Event ${JSON.stringify(String(d.event ?? "").slice(0, 40))} is not accepted; ` +
        "only issues (action opened) fires this trigger",
    );
  }
  if (d.deliveryId === undefined || !/^[A-Za-z0-9-]{1,100}$/.test(d.deliveryId)) {
    return no(400, "bad_delivery_id", "X-GitHub-Delivery is missing or malformed");
  }
  let text: string;
  try {
    text = utf8.decode(d.body);
  } catch {
    return no(400, "invalid_json", "the body is not JSON in UTF-8");
  }
  const tooDeep = jsonDepthRefusal(text);
  if (tooDeep !== null) return no(400, "json_too_deep", `the body is ${tooDeep}`);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return no(400, "invalid_json", "the body is not JSON in UTF-8");
  }
  let issue;
  try {
    issue = parseOpenedIssue(payload);
  } catch (err) {
    if (!(err instanceof IssuePayloadError)) throw err;
    const code = /action/.test(err.message) ? "event_not_accepted" : "bad_payload";
    return no(422, code, err.message);
  }
  if (issue.repo.toLowerCase() !== trigger.repo.toLowerCase()) {
    return no(
      422,
      "wrong_repository",
      `this trigger accepts ${trigger.repo} only, not ${JSON.stringify(issue.repo.slice(0, 140))}`,
    );
  }
  const forget = new Date(ctx.clock.now().getTime() - DELIVERY_MEMORY_DAYS * 86_400_000);
  let made: { job: Job; run: Run } | null = null;
  try {
    made = ctx.store.atomically(() => {
      if (!ctx.store.triggers.recordDelivery(trigger.id, d.deliveryId!, forget.toISOString())) {
        return null;
      }
      const fired = ctx.jobs.submitOneShot(oneShotOf(trigger, issue), {
        recipe_id: trigger.recipe_id,
        recipe_version: trigger.recipe_version,
        meta: {
          surface: "github_pr_comment",
          github: { repo: trigger.repo, issue_number: issue.number },
          trigger_id: trigger.id,
          delivery_id: d.deliveryId,
        },
      });
      ctx.store.triggers.setDeliveryJob(trigger.id, d.deliveryId!, fired.job.id);
      return fired;
    });
  } catch (err) {
    // Nothing was kept (the delivery id included), so a redelivery can try again.
    if (err instanceof CapacityError) return no(503, "capacity-exceeded", errorText(err));
    if (err instanceof JobLimitError) return no(409, "job_limit", errorText(err));
    if (err instanceof JobValidationError) return no(422, "bad_payload", errorText(err));
    throw err;
  }
  if (made === null) {
    return no(409, "delivery_replayed", `delivery ${d.deliveryId} was already received; ignored`);
  }
  audit(ctx.store, ctx.logger, {
    action: AUDIT_RECIPES.webhookFire,
    target: `trigger:${trigger.id}`,
    actor: "webhook:github",
    detail: `delivery ${d.deliveryId}: ${trigger.repo}#${issue.number} -> job ${made.job.id}`,
  });
  return { status: 202, fired: { job_id: made.job.id, run_id: made.run.id } };
}

type Refusal = Extract<WebhookOutcome, { code: string }>;

function refuse(
  ctx: Pick<WebhookContext, "store" | "logger">,
  triggerId: number,
  deliveryId: string | undefined,
  status: Refusal["status"],
  code: string,
  message: string,
): Refusal {
  audit(ctx.store, ctx.logger, {
    action: AUDIT_RECIPES.webhookRefused,
    target: `trigger:${triggerId}`,
    actor: "webhook:github",
    detail: `${status} ${code} (delivery ${shortId(deliveryId)}): ${message}`,
  });
  return { status, code, message };
}

function shortId(id: string | undefined): string {
  if (id === undefined) return "none";
  return /^[A-Za-z0-9-]{1,100}$/.test(id) ? id : JSON.stringify(id.slice(0, 40));
}

/** The one-shot of a delivery: the frozen prompt plus the issue as untrusted data. */
function oneShotOf(trigger: RecipeTrigger, issue: OpenedIssue): Record<string, unknown> {
  return {
    name: `${trigger.name} #${issue.number}`.slice(0, 200),
    prompt: promptWithIssue(trigger.prompt, issue),
    workdir: trigger.job.workdir,
    mode: trigger.job.mode,
    timeout_s: trigger.job.timeout_s,
    max_retries: trigger.job.max_retries,
    token_budget: trigger.job.token_budget,
  };
}
