// One Web Push request: the envelope encrypted for one subscription (RFC 8291, aes128gcm)
// with a VAPID authorization (RFC 8292), both by npm:web-push, POSTed through the injected
// fetch after the endpoint guard has checked every address the host resolves to. The
// answer is sorted into what the fan-out does next (spec 3.3, 7).

import type { Fetch } from "../ports.ts";
import type { PushSubscription } from "../store/store.ts";
import { checkEndpointAtSend, EndpointRefusedError, type HostResolver } from "./endpoint_guard.ts";
import type { PushMessage } from "./retry_queue.ts";
import type { VapidKeys } from "./vapid.ts";

/**
 * - delivered: 2xx.
 * - gone: 404 or 410, the subscription is dead and is pruned.
 * - retry: 5xx, 429, a network error or a timeout; sent again at the next fan-out.
 * - refused: the guard refused the endpoint, the subscription's keys cannot be used to
 *   encrypt, or another answer (4xx, 3xx) that repeating would not change; logged, not
 *   retried, the subscription kept.
 */
export type PushOutcome =
  | { result: "delivered"; status: number }
  | { result: "gone"; status: number }
  | { result: "retry"; status: number | null; detail: string }
  | { result: "refused"; status: number | null; detail: string };

export interface PushRequestContext {
  keys: VapidKeys;
  fetch: Fetch;
  resolve: HostResolver;
  allowLoopback: boolean;
  /** The push service keeps an undelivered message this long (TTL header). */
  ttlSeconds: number;
  signal: AbortSignal;
}

type WebPush = typeof import("web-push");
let webPush: Promise<WebPush> | null = null;

/** web-push is loaded on the first send: a dormant lane never evaluates it. */
function loadWebPush(): Promise<WebPush> {
  webPush ??= import("web-push").then((m) => (m.default ?? m) as WebPush);
  return webPush;
}

/** A Topic header value (RFC 8030: at most 32 URL-safe base64 characters), or none. */
function topic(tag: string): string | undefined {
  return /^[A-Za-z0-9_-]{1,32}$/.test(tag) ? tag : undefined;
}

/** Gives the event loop a turn, so encrypting many subscriptions never holds it for long. */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export async function sendPush(
  sub: PushSubscription,
  message: PushMessage,
  ctx: PushRequestContext,
): Promise<PushOutcome> {
  try {
    await checkEndpointAtSend(sub.endpoint, ctx.resolve, ctx.allowLoopback);
  } catch (err) {
    if (err instanceof EndpointRefusedError) {
      return { result: "refused", status: null, detail: err.message };
    }
    // The resolver failed (no answer, no permission): that is not a verdict on the host.
    return {
      result: "retry",
      status: null,
      detail: `resolving failed: ${sendErrorText(err, sub.endpoint)}`,
    };
  }
  const wp = await loadWebPush();
  await yieldTurn();
  ctx.signal.throwIfAborted();
  const t = topic(message.tag);
  let details: ReturnType<WebPush["generateRequestDetails"]>;
  try {
    details = wp.generateRequestDetails(
      { endpoint: sub.endpoint, keys: sub.keys },
      JSON.stringify(message.envelope),
      {
        vapidDetails: ctx.keys,
        TTL: ctx.ttlSeconds,
        urgency: message.urgency,
        contentEncoding: "aes128gcm",
        ...(t ? { topic: t } : {}),
      },
    );
  } catch (err) {
    // The keys were checked when stored and loaded, so this is the subscription's p256dh or
    // auth that web-push cannot use: sending again would fail the same way.
    return {
      result: "refused",
      status: null,
      detail: `encrypting for this subscription failed: ${sendErrorText(err, sub.endpoint)}`,
    };
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(details.headers)) headers.set(k, String(v));
  let res: Response;
  try {
    res = await ctx.fetch(details.endpoint, {
      method: "POST",
      headers,
      body: details.body as Uint8Array<ArrayBuffer>,
      // A push service never redirects; following one would reopen the SSRF door.
      redirect: "manual",
      signal: ctx.signal,
    });
  } catch (err) {
    return { result: "retry", status: null, detail: sendErrorText(err, sub.endpoint) };
  }
  const status = res.status;
  let text: string;
  try {
    text = redactEndpoint((await res.text()).slice(0, 200), sub.endpoint);
  } catch (err) {
    // The status decides; an unreadable body is said, not passed off as an empty one.
    text = `(the answer's body could not be read: ${sendErrorText(err, sub.endpoint)})`;
  }
  if (status >= 200 && status < 300) return { result: "delivered", status };
  if (status === 404 || status === 410) return { result: "gone", status };
  const detail = `push service answered ${status}${text ? `: ${text}` : ""}`;
  if (status >= 500 || status === 429) return { result: "retry", status, detail };
  return { result: "refused", status, detail };
}

/**
 * `text` with the endpoint (a capability URL: whoever has it can push to the device) and its
 * path replaced by a placeholder naming only the host, for logs and outcomes.
 */
export function redactEndpoint(text: string, endpoint: string): string {
  let url: URL | null = null;
  try {
    url = new URL(endpoint);
  } catch { /* not a URL: only the stored text itself is replaced */ }
  const placeholder = `<endpoint at ${url?.host ?? "?"}>`;
  const secrets = [endpoint, url?.href, url && url.pathname.length > 1 ? url.pathname : null]
    .filter((s): s is string => !!s);
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(placeholder);
  return out;
}

/**
 * What went wrong sending to `endpoint`, for the log: the message and its causes (Deno's
 * fetch says only "fetch failed" and keeps why, with the full URL, in `cause`), redacted.
 */
export function sendErrorText(err: unknown, endpoint: string): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return redactEndpoint(parts.join(": "), endpoint);
}
