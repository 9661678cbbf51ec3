// What the outpost's HTTP app is built from (createApp(deps) in app.ts). Everything the
// routes and pages touch is injected here, so tests build an app on fakes (see
// tests/fakes/test_outpost.ts: makeTestOutpost) and main.ts builds it on the real world
// (server/wiring.ts: openOutpost). Keep this file additive: add fields, never repurpose one.
//
// For the pages (server/routes/pages.ts, server/views/):
// - CSRF: put `deps.csrf.token()` in `<meta name="csrf-token" content="…">` (or use
//   csrfMetaTag from server/http/csrf.ts). The cookie is set by app.ts middleware on every
//   GET response that lacks it; page scripts send the token in the X-CSRF-Token header on
//   every non-GET request (same-origin fetch sends the cookie).
// - Live state: `GET /api/events` is a server-sent-events stream of LiveEvent (below), one
//   JSON object per `data:` line, `event:` = the event's type, `id:` = its seq. Reconnects
//   may send Last-Event-ID to replay what was missed (the last 200 events are kept). The
//   events are pings with ids and the new status only: refetch the JSON routes for details.
//   A stream first sends `event: hello` with `{seq}`. Pages can also poll the JSON routes.
// - JSON shapes: docs/dashboard-api.md. Error body everywhere:
//   {"error": {"code": "...", "message": "...", "field"?: "..."}}.

import type { StreamLimits } from "./http/stream_slots.ts";
import type { Delivery } from "../core/delivery/delivery.ts";
import type { Logger } from "../core/logger.ts";
import type { Governor } from "../core/governor/governor.ts";
import type { InboxService } from "../core/inbox/service.ts";
import type { MemoryStore } from "../core/memory/mod.ts";
import type { Clock, Env } from "../core/ports.ts";
import type { GithubCommentPoster } from "../core/recipes/github_comment.ts";
import type { PublishGate } from "../core/publish/gate.ts";
import type { RecipeService } from "../core/recipes/service.ts";
import type { TriggerSecrets } from "../core/recipes/trigger_secret.ts";
import type { AuditBurstTally } from "../core/audit/burst_tally.ts";
import type { Scheduler } from "../core/scheduler/scheduler.ts";
import type { FleetSource } from "./fleet_view.ts";
import type { RunStatus, Store } from "../core/store/store.ts";
import type { InboxState } from "../core/store/store.ts";
import type { ProtectedPlaces } from "../core/workdir_policy.ts";

/** The install's CSRF token: minted once (persisted), then only read. */
export interface CsrfTokenSource {
  token(): string;
}

/** Messenger pill (spec 3.3): dormant while any MX_* variable is missing. */
export interface MessengerStatus {
  state: "dormant" | "ok" | "error";
  /** Names of the missing MX_* variables (empty unless dormant). */
  missing: string[];
  /** Number of Matrix user ids in MX_ALLOWLIST. */
  allowlist_size: number;
  /** Why the state is error (the last sync error, "connecting" …); absent otherwise. */
  detail?: string;
  /** While in error: when the sync loop tries again (UTC ISO-Z). */
  next_retry_at?: string;
  /** The bot's last successful sync (UTC ISO-Z). */
  last_sync_at?: string;
}

/** Push badge: dormant without VAPID_PRIVATE_KEY_FILE; error when the key file is unusable. */
export interface PushStatus {
  state: "dormant" | "ok" | "error";
  /** Base64url uncompressed P-256 VAPID public key (derived from the private key file). */
  public_key?: string;
  /** Stored browser subscriptions. */
  devices: number;
  /** Names of the missing variables while dormant. */
  missing: string[];
  /** Why the state is error; absent otherwise. */
  detail?: string;
}

/** Pings for live pages (see the header comment). `seq` grows by one per event. */
export type LiveEvent =
  & { seq: number; at: string }
  & (
    | { type: "run"; job_id: number; run_id: number; status: RunStatus | null }
    | { type: "inbox"; id: number; job_id: number; run_id: number; state: InboxState }
    | { type: "job"; job_id: number; change: "created" | "updated" | "deleted" }
    | { type: "governor" }
  );

/** Distributes LiveEvents (server/http/live_feed.ts implements it). */
export interface LiveEvents {
  /** Stamps seq and at, keeps the event for replay and tells every subscriber. */
  publish(event: DistributiveOmit<LiveEvent, "seq" | "at">): void;
  /** Returns the unsubscribe function; `onClose` runs when the feed closes (shutdown). */
  subscribe(listener: (event: LiveEvent) => void, onClose?: () => void): () => void;
  /** Kept events with a larger seq (for Last-Event-ID), oldest first. */
  since(seq: number): LiveEvent[];
  readonly seq: number;
  /** Ends every open stream (shutdown). */
  close(): void;
  readonly closed: boolean;
}

export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface AppDeps {
  store: Store;
  /** Job operations, trigger, cancel core, one-shot submission, resume, governor usage. */
  scheduler: Scheduler;
  governor: Governor;
  /** Answer / dismiss / holds / high-risk confirm / push action (core/inbox/service.ts). */
  inbox: InboxService;
  /** Opens the memory store on first use (lazy: opening walks the memory root). */
  memory: () => Promise<MemoryStore>;
  clock: Clock;
  env: Env;
  logger: Logger;
  delivery: Delivery;
  csrf: CsrfTokenSource;
  live: LiveEvents;
  /** Caps on open GET /api/events streams; default DEFAULT_STREAM_LIMITS (16 per client, 128). */
  eventStreamLimits?: StreamLimits;
  /** The agent home (AGENT_HOME or ~/.agent); outpost data lives under <home>/outpost/. */
  home: string;
  /** What no job's workdir may be, hold or lie inside (core/workdir_policy.ts). */
  workdirPlaces: ProtectedPlaces;
  /** High-risk hold lifetime (AGENT_MATRIX_HOLD_TTL seconds × 1000; default 3600 s). */
  holdTtlMs: number;
  /** Public base address of the dashboard ({base_url}), e.g. https://outpost.example.org. */
  baseUrl: string;
  /**
   * The bound address, set by serve.ts once listening; with baseUrl and
   * AGENT_OUTPOST_ALLOWED_HOSTS it makes the names the outpost answers to
   * (server/http/served_hosts.ts). Absent: only baseUrl's host and the allowed names.
   */
  listen?: { hostname: string; port: number };
  /** Header the SSO proxy sets with the user (audit actor); null trusts no header. */
  trustedUserHeader: string | null;
  /** Recipe catalog, enable, preview and the recipe-made jobs (core/recipes/service.ts). */
  recipes: RecipeService;
  /** Webhook secrets of recipe triggers, derived from <home>/outpost/trigger_key. */
  triggerSecrets: TriggerSecrets;
  /** Audit rows of refused webhook deliveries: one per source and reason a minute, counted. */
  webhookRefusals: AuditBurstTally;
  /** The github_pr_comment surface: posts trigger runs' answers on their issues. */
  githubComments: GithubCommentPoster;
  /**
   * The secret scanner every publication passes (GitHub comments, chat, push); held ones
   * are inbox items of kind publish_hold, released or dropped here (core/publish/).
   */
  publishGate: PublishGate;
  messengerStatus(): MessengerStatus;
  pushStatus(): PushStatus;
  /**
   * Changes whenever the store commits (server/http/data_version.ts), for response caches;
   * null when the store cannot be watched (in-memory test stores): then nothing is cached.
   */
  dataVersion: (() => number) | null;
  /** The outposts sharing the store, for /fleet, /api/fleet and /metrics (server/fleet_view.ts). */
  fleet: FleetSource;
}
