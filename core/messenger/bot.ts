// The Matrix bot's sync loop (spec 3.3, 5.9, 8): long polls /sync (up to 30 s), joins every
// room it is invited to, hands each new operator message to the gate in arrival order and
// posts the reply. On failure the state reads error with the last error and the next retry
// time, and the loop backs off 1 s, 2 s, 4 s … up to a cap, returning to ok on its own at
// the first sync that succeeds.
//
// Everything the bot sends, command replies and delivery notices alike, passes the publish
// gate's secret scanner first (core/publish/gate.ts). A held notice about a run becomes an
// inbox item to release or drop; a held command reply is replaced by a one-line notice.
//
// The first sync after start only learns where "now" is: messages sent while the bot was
// away are not acted on, so a stale approve cannot fire hours later (docs/messenger.md).

import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import type { PublishGate } from "../publish/gate.ts";
import { isoZ } from "../time.ts";
import type { Gate, IncomingMessage } from "./gate.ts";
import type { RoomTrust } from "./room_trust.ts";
import type { MatrixTransport, SendOptions, SyncResponse } from "./transport.ts";

export const SYNC_TIMEOUT_MS = 30_000;
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
const SEEN_MAX = 2_000;

/** Sent instead of a command reply the secret scanner held (the audit row says why). */
export const WITHHELD_REPLY =
  "This reply was withheld: it matched the secret scanner. The dashboard's audit log says why.";

/** What a held chat message keeps for its release. */
interface HeldMessage {
  room: string;
  text: string;
}

/** What the pill shows (server/http/status.ts turns it into GET /api/messenger/status). */
export interface BotStatus {
  state: "ok" | "error";
  /** Why the state is error (the last failure, or "connecting" before the first sync). */
  detail?: string;
  /** When the failing loop tries again (UTC ISO-Z), while in error. */
  next_retry_at?: string;
  /** Last successful sync (UTC ISO-Z). */
  last_sync_at?: string;
  /** Consecutive failed syncs. */
  failures: number;
}

export interface BotOptions {
  transport: MatrixTransport;
  /** Gate built around `rooms` (layer 2 reads the same member cache the loop invalidates). */
  gate: Gate;
  rooms: RoomTrust;
  /** Clock of the retry waits (the real one in production). */
  clock: Clock;
  logger: Logger;
  /** The secret scanner every outgoing text passes. */
  publish: PublishGate;
  syncTimeoutMs?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
}

/** The delay before retry `failures` (1-based): base, 2·base, 4·base … capped. */
export function backoffMs(failures: number, base: number, cap: number): number {
  return Math.min(cap, base * 2 ** Math.min(30, Math.max(0, failures - 1)));
}

export class MatrixBot {
  readonly #o: BotOptions;
  readonly #abort = new AbortController();
  readonly #seen = new Set<string>();
  readonly #joining = new Set<string>();
  #status: BotStatus = { state: "error", detail: "connecting", failures: 0 };
  #userId: string | null = null;
  #since: string | null = null;
  #loop: Promise<void> | null = null;
  #queue: Promise<void> = Promise.resolve();
  readonly #waiters = new Set<() => void>();
  /** Removes this bot as the publisher of released chat messages (stop). */
  readonly #unregister: () => void;

  constructor(options: BotOptions) {
    this.#o = options;
    this.#unregister = options.publish.register("chat", async (payload) => {
      const { room, text } = payload as HeldMessage;
      await options.transport.send(room, text);
    });
  }

  get userId(): string | null {
    return this.#userId;
  }

  status(): BotStatus {
    return { ...this.#status };
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops the loop, waits for the message queue, releases the client. */
  async stop(): Promise<void> {
    this.#unregister(); // a release after this says no chat sender is running
    this.#abort.abort(new Error("messenger stopped"));
    await this.#loop;
    await this.#queue;
    this.#o.transport.close();
  }

  /**
   * Posts a notice (deliveries, hold-confirmation replies) once the publish gate clears it.
   * Resolves with the event id, or null when the text was held (audited; an inbox item
   * when `source` names the job and run it is about).
   */
  async post(
    room: string,
    text: string,
    options: SendOptions & { source?: { job_id?: number; run_id?: number } } = {},
  ): Promise<string | null> {
    const { source, ...send } = options;
    const screened = await this.#o.publish.screen({
      surface: "chat",
      where: `room ${room}`,
      job_id: source?.job_id ?? null,
      run_id: source?.run_id ?? null,
      text,
      payload: { room, text } satisfies HeldMessage,
    });
    if (screened.kind === "held") return null;
    return await this.#o.transport.send(room, text, send);
  }

  /** Resolves at the next status change (tests and diagnostics wait on this, not on time). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.add(resolve));
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    const o = this.#o;
    const base = o.backoffBaseMs ?? BACKOFF_BASE_MS;
    const cap = o.backoffCapMs ?? BACKOFF_CAP_MS;
    while (!signal.aborted) {
      try {
        if (this.#userId === null) {
          this.#userId = await o.transport.whoami(signal);
          o.rooms.bot = this.#userId;
        }
        // After a failure the next sync does not wait: the pill returns to ok within one
        // round trip instead of after a whole quiet long poll.
        const wait = this.#status.state === "ok" ? o.syncTimeoutMs ?? SYNC_TIMEOUT_MS : 0;
        const res = await o.transport.sync(this.#since, wait, signal);
        const first = this.#since === null;
        this.#since = res.next_batch;
        this.#setStatus({ state: "ok", last_sync_at: isoZ(o.clock.now()), failures: 0 });
        this.#absorb(res, first);
      } catch (err) {
        if (signal.aborted) break;
        const failures = this.#status.failures + 1;
        const wait = backoffMs(failures, base, cap);
        const detail = errorText(err);
        this.#setStatus({
          state: "error",
          detail,
          next_retry_at: isoZ(new Date(o.clock.now().getTime() + wait)),
          failures,
          ...(this.#status.last_sync_at ? { last_sync_at: this.#status.last_sync_at } : {}),
        });
        if (failures === 1 || failures % 10 === 0) {
          o.logger.log("warn", "matrix sync failed; backing off", {
            error: detail,
            failures,
            retry_in_ms: wait,
          });
        }
        try {
          await o.clock.sleep(wait, signal);
        } catch {
          break; // stopped while waiting
        }
      }
    }
  }

  #setStatus(next: BotStatus): void {
    const was = this.#status;
    this.#status = next;
    if (was.state !== next.state || was.detail !== next.detail || next.state === "error") {
      for (const w of [...this.#waiters]) w();
      this.#waiters.clear();
    }
  }

  /** Takes in one sync batch: invites, membership changes and new messages. */
  #absorb(res: SyncResponse, first: boolean): void {
    const rooms = res.rooms ?? {};
    for (const room of Object.keys(rooms.invite ?? {})) this.#join(room);
    for (const room of Object.keys(rooms.leave ?? {})) this.#o.rooms.invalidate(room);
    for (const [room, data] of Object.entries(rooms.join ?? {})) {
      const events = [...(data.state?.events ?? []), ...(data.timeline?.events ?? [])];
      if (events.some((e) => e.type === "m.room.member")) this.#o.rooms.invalidate(room);
      if (first) continue;
      const timeline = data.timeline?.events ?? [];
      // Messages before the bot's own join (history it sees on joining) are not commands.
      const joinedAt = timeline.findLastIndex((e) =>
        e.type === "m.room.member" && e.state_key === this.#userId &&
        e.content.membership === "join"
      );
      for (const e of timeline.slice(joinedAt + 1)) {
        if (e.type !== "m.room.message" || e.sender === this.#userId) continue;
        if (e.content.msgtype !== "m.text" || typeof e.content.body !== "string") continue;
        if (this.#seen.has(e.event_id)) continue;
        this.#remember(e.event_id);
        this.#enqueue({ sender: e.sender, room, event_id: e.event_id, body: e.content.body });
      }
    }
  }

  #remember(id: string): void {
    this.#seen.add(id);
    if (this.#seen.size > SEEN_MAX) {
      const oldest = this.#seen.values().next().value as string;
      this.#seen.delete(oldest);
    }
  }

  #join(room: string): void {
    if (this.#joining.has(room)) return;
    this.#joining.add(room);
    this.#o.transport.join(room, this.#abort.signal)
      .then(() => this.#o.logger.log("info", "matrix: joined room on invite", { room }))
      .catch((err) =>
        this.#o.logger.log("warn", "matrix: joining an invited room failed", {
          room,
          error: errorText(err),
        })
      )
      .finally(() => {
        this.#joining.delete(room);
        this.#o.rooms.invalidate(room);
      });
  }

  /** Messages are handled one at a time, in order, without holding up the next sync. */
  #enqueue(msg: IncomingMessage): void {
    this.#queue = this.#queue.then(async () => {
      try {
        const reply = await this.#o.gate.handle(msg);
        if (reply !== null && !this.#abort.signal.aborted) {
          const sent = await this.post(msg.room, reply, { replyTo: msg.event_id });
          if (sent === null) {
            await this.#o.transport.send(msg.room, WITHHELD_REPLY, { replyTo: msg.event_id });
          }
        }
      } catch (err) {
        this.#o.logger.log("warn", "matrix: replying to a command failed", {
          room: msg.room,
          error: errorText(err),
        });
      }
    });
  }
}
