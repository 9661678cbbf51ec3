// A code-host delivery to a recipe trigger (issue-triage): authenticated by the HMAC of the
// raw body, then checked for event, delivery id, payload and repository, then fired as one
// api-class one-shot whose prompt is the trigger's frozen prompt plus the issue as untrusted
// data. Every refusal is an outcome with a status and fires nothing; its audit row goes
// through the burst tally (core/audit/burst_tally.ts: the first per source and reason a
// minute, then a count), because anyone can cause one.
// The order matters: nothing about the trigger (enabled or not, delivery ids seen) is
// revealed or recorded before the signature checks out.
// Replays: the same event (by its identity in the signed body, webhook_event_key.ts) fires
// once whatever its delivery id; a repeat answers 200 `duplicate` and fires nothing. A
// repeated delivery id with a body never seen before cannot be signed by anyone but the code
// host, and is refused 409.

import { audit } from "../audit/audit.ts";
import type { AuditBurstTally } from "../audit/burst_tally.ts";
import { jsonDepthRefusal } from "../json_depth.ts";
import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import { CapacityError } from "../governor/errors.ts";
import { type JobStamp, JobValidationError } from "../scheduler/job_input.ts";
import { JobLimitError } from "../store/errors.ts";
import type { Job, Run, Store } from "../store/store.ts";
import type { RecipeTrigger, SeenEvent } from "../store/triggers.ts";
import { UNTRUSTED_INTAKE } from "../scheduler/intake.ts";
import { AUDIT_RECIPES } from "./audit_actions.ts";
import {
  IssuePayloadError,
  type OpenedIssue,
  parseOpenedIssue,
  promptWithIssue,
} from "./issue_event.ts";
import { type TriggerSecrets, verifyGithubSignature } from "./trigger_secret.ts";
import { EVENT_REPLAY_WINDOW_MS, eventKey, staleEvent } from "./webhook_event_key.ts";

/** Largest delivery accepted (GitHub's issue payloads are a few KB; its own cap is 25 MB). */
export const WEBHOOK_BODY_MAX = 1024 * 1024;
/**
 * Requests a minute one source address may make at the webhook door, counted before anything
 * is read or written. A trigger fires on issues opened in one repository, so honest traffic is
 * a few deliveries a minute; 120 leaves room for a burst of GitHub deliveries (which arrive
 * from a handful of its hook addresses) and stops a flood after two seconds' worth.
 */
export const WEBHOOK_PER_SOURCE_PER_MINUTE = 120;
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
  /** Where refusals are audited: one row per source and reason a minute, with a count. */
  refusals: AuditBurstTally;
}

export interface GithubDelivery {
  /** Who sent it (the TCP peer, "addr:<ip>"): the key of the refusal tally. */
  source: string;
  triggerId: number;
  signature: string | undefined;
  event: string | undefined;
  deliveryId: string | undefined;
  body: Uint8Array;
}

export type WebhookOutcome =
  | { status: 202; fired: { job_id: number; run_id: number } }
  | { status: 200; pong: true }
  /** The event already fired (a replay or a redelivery): nothing fired again. */
  | { status: 200; duplicate: { job_id: number | null; first_delivery: string } }
  | { status: 400 | 401 | 404 | 409 | 413 | 422 | 429 | 503; code: string; message: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The refusal of a body over WEBHOOK_BODY_MAX (the route stops reading at the cap). */
export function tooLarge(ctx: WebhookContext, source: string, triggerId: number): WebhookOutcome {
  return refuse(
    ctx,
    { source, triggerId, deliveryId: undefined },
    413,
    "payload_too_large",
    `delivery body over ${WEBHOOK_BODY_MAX} bytes`,
  );
}

/** The refusal of a source over its request rate (checked before anything else is done). */
export function rateLimited(
  ctx: Pick<WebhookContext, "refusals">,
  source: string,
  triggerId: number,
  retryInMs: number,
): Refusal {
  return refuse(
    ctx,
    { source, triggerId, deliveryId: undefined },
    429,
    "rate_limited",
    `more than ${WEBHOOK_PER_SOURCE_PER_MINUTE} deliveries a minute from one address; ` +
      `try again in ${Math.ceil(retryInMs / 1000)} s`,
  );
}

export async function receiveGithubDelivery(
  ctx: WebhookContext,
  d: GithubDelivery,
): Promise<WebhookOutcome> {
  const no = (status: Refusal["status"], code: string, message: string) =>
    refuse(ctx, d, status, code, message);
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
    // Tallied too: a captured ping is a signed body anyone could replay.
    ctx.refusals.record(d.source, "ping", {
      action: AUDIT_RECIPES.webhookRefused,
      target: `trigger:${trigger.id}`,
      actor: "webhook:github",
      channel: "webhook",
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
  const now = ctx.clock.now().getTime();
  const stale = staleEvent(issue, now);
  if (stale !== null) return no(422, "stale_event", stale);
  const fired = fire(ctx, trigger, issue, d.deliveryId, now);
  if ("refusal" in fired) return no(...fired.refusal);
  if ("duplicate" in fired) {
    const first = fired.duplicate;
    ctx.refusals.record(d.source, "duplicate_event", {
      action: AUDIT_RECIPES.webhookDuplicate,
      target: `trigger:${trigger.id}`,
      actor: "webhook:github",
      channel: "webhook",
      detail: `delivery ${d.deliveryId}: ${trigger.repo}#${issue.number} already fired ` +
        `(delivery ${first.delivery_id}, job ${first.job_id ?? "none"}); nothing fired`,
    });
    return {
      status: 200,
      duplicate: { job_id: first.job_id, first_delivery: first.delivery_id },
    };
  }
  const made = fired.made;
  audit(ctx.store, ctx.logger, {
    action: AUDIT_RECIPES.webhookFire,
    target: `trigger:${trigger.id}`,
    actor: "webhook:github",
    channel: "webhook",
    detail: `delivery ${d.deliveryId}: ${trigger.repo}#${issue.number} -> job ${made.job.id}`,
  });
  return { status: 202, fired: { job_id: made.job.id, run_id: made.run.id } };
}

type Refusal = Extract<WebhookOutcome, { code: string }>;

function refuse(
  ctx: Pick<WebhookContext, "refusals">,
  d: Pick<GithubDelivery, "source" | "triggerId" | "deliveryId">,
  status: Refusal["status"],
  code: string,
  message: string,
): Refusal {
  ctx.refusals.record(d.source, code, {
    action: AUDIT_RECIPES.webhookRefused,
    target: `trigger:${d.triggerId}`,
    actor: "webhook:github",
    channel: "webhook",
    detail: `${status} ${code} (delivery ${shortId(d.deliveryId)}): ${message}`,
  });
  return { status, code, message };
}

type Fired =
  | { made: { job: Job; run: Run } }
  | { duplicate: SeenEvent }
  | { refusal: [Refusal["status"], string, string] };

/** Thrown inside the transaction to undo the event's record when its delivery id was seen. */
class DeliveryReplayed extends Error {}

/**
 * Records the event and the delivery id and submits the one-shot, in one transaction: when
 * any step fails nothing is kept, so a redelivery can try again.
 */
function fire(
  ctx: WebhookContext,
  trigger: RecipeTrigger,
  issue: OpenedIssue,
  deliveryId: string,
  nowMs: number,
): Fired {
  const key = eventKey(issue, "opened");
  const forgetEvents = new Date(nowMs - EVENT_REPLAY_WINDOW_MS).toISOString();
  const forgetDeliveries = new Date(nowMs - DELIVERY_MEMORY_DAYS * 86_400_000).toISOString();
  try {
    return ctx.store.atomically((): Fired => {
      const seen = ctx.store.triggers.recordEvent(trigger.id, key, deliveryId, forgetEvents);
      if (seen !== null) return { duplicate: seen };
      if (!ctx.store.triggers.recordDelivery(trigger.id, deliveryId, forgetDeliveries)) {
        throw new DeliveryReplayed();
      }
      const made = ctx.jobs.submitOneShot(oneShotOf(trigger, issue), {
        recipe_id: trigger.recipe_id,
        recipe_version: trigger.recipe_version,
        meta: {
          surface: "github_pr_comment",
          github: { repo: trigger.repo, issue_number: issue.number },
          trigger_id: trigger.id,
          delivery_id: deliveryId,
          [UNTRUSTED_INTAKE]: true,
        },
      });
      ctx.store.triggers.setDeliveryJob(trigger.id, deliveryId, made.job.id);
      ctx.store.triggers.setEventJob(trigger.id, key, made.job.id);
      return { made };
    });
  } catch (err) {
    if (err instanceof DeliveryReplayed) {
      return {
        refusal: [409, "delivery_replayed", `delivery ${deliveryId} was already received; ignored`],
      };
    }
    if (err instanceof CapacityError) {
      return { refusal: [503, "capacity-exceeded", errorText(err)] };
    }
    if (err instanceof JobLimitError) return { refusal: [409, "job_limit", errorText(err)] };
    if (err instanceof JobValidationError) return { refusal: [422, "bad_payload", errorText(err)] };
    throw err;
  }
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
