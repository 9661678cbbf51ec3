// A scripted Matrix homeserver behind the MatrixTransport seam, for tests of the bot's real
// loop: sync batches handed out one per long poll (the first sync only learns "now"), sends
// recorded, room members read live from a map the test changes.

import type {
  MatrixEvent,
  MatrixTransport,
  RoomMember,
  SendOptions,
  SyncResponse,
} from "../../core/messenger/transport.ts";

export interface Sent {
  room: string;
  text: string;
  replyTo: string | undefined;
}

/** Sync batches handed out one per long poll; sends recorded; members read live. */
export class ScriptedTransport implements MatrixTransport {
  readonly #room: string;
  readonly #bot: string;
  readonly members_ = new Map<string, string[]>();
  readonly sent: Sent[] = [];
  memberReads = 0;
  /** The long-poll timeout of every sync the bot made, in order. */
  readonly syncTimeouts: number[] = [];
  readonly #batches: SyncResponse[] = [];
  #batch = 0;
  #wake: (() => void) | null = null;
  #sentWaiters: (() => void)[] = [];

  /** `room`: the one room the sync batches carry; `bot`: the bot's own user id. */
  constructor(room: string, bot: string) {
    this.#room = room;
    this.#bot = bot;
  }

  push(timeline: MatrixEvent[]): void {
    this.#batches.push({
      next_batch: `s${++this.#batch}`,
      rooms: { join: { [this.#room]: { timeline: { events: timeline } } } },
    });
    this.#wake?.();
  }

  /** Resolves with the next message the bot sends. */
  async nextSent(): Promise<Sent> {
    const count = this.sent.length;
    while (this.sent.length === count) {
      await new Promise<void>((resolve) => this.#sentWaiters.push(resolve));
    }
    return this.sent[count]!;
  }

  whoami(): Promise<string> {
    return Promise.resolve(this.#bot);
  }

  async sync(since: string | null, timeoutMs: number, signal: AbortSignal) {
    this.syncTimeouts.push(timeoutMs);
    if (since === null) return { next_batch: "s0" }; // the first sync only learns "now"
    while (this.#batches.length === 0) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    return this.#batches.shift()!;
  }

  send(room: string, text: string, options?: SendOptions): Promise<string> {
    this.sent.push({ room, text, replyTo: options?.replyTo });
    for (const w of this.#sentWaiters.splice(0)) w();
    return Promise.resolve(`$sent${this.sent.length}`);
  }

  join(): Promise<void> {
    return Promise.resolve();
  }

  members(room: string): Promise<RoomMember[]> {
    this.memberReads++;
    return Promise.resolve(
      (this.members_.get(room) ?? []).map((user_id) => ({ user_id, membership: "join" })),
    );
  }

  close(): void {}
}

/** A text message event from `sender`. */
export function textMessage(sender: string, body: string, id: string): MatrixEvent {
  return { type: "m.room.message", sender, event_id: id, content: { msgtype: "m.text", body } };
}
