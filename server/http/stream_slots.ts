// Slots for long-lived event streams (GET /api/events): at most `perClient` open streams per
// client and `total` in all, so a script or a stuck tab cannot hold unbounded memory (each
// stream costs tens of kilobytes). A refusal names which cap was hit; a slot is given back
// exactly once when its stream ends, however it ends.

export interface StreamLimits {
  /** Open streams one client may hold (a browser opens one per tab). */
  perClient: number;
  /** Open streams across all clients. */
  total: number;
}

export const DEFAULT_STREAM_LIMITS: Readonly<StreamLimits> = { perClient: 16, total: 128 };

export type SlotResult =
  | { ok: true; release: () => void }
  | { ok: false; cap: "client" | "total"; limit: number };

export class StreamSlots {
  readonly limits: StreamLimits;
  readonly #byClient = new Map<string, number>();
  #open = 0;

  constructor(limits: StreamLimits = DEFAULT_STREAM_LIMITS) {
    this.limits = limits;
  }

  get open(): number {
    return this.#open;
  }

  acquire(client: string): SlotResult {
    const mine = this.#byClient.get(client) ?? 0;
    // The client cap is checked first: one greedy client gets 429 (its own doing) even
    // when it also filled the outpost, and everyone else then sees 503.
    if (mine >= this.limits.perClient) {
      return { ok: false, cap: "client", limit: this.limits.perClient };
    }
    if (this.#open >= this.limits.total) {
      return { ok: false, cap: "total", limit: this.limits.total };
    }
    this.#byClient.set(client, mine + 1);
    this.#open++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#open--;
        const left = (this.#byClient.get(client) ?? 1) - 1;
        if (left <= 0) this.#byClient.delete(client);
        else this.#byClient.set(client, left);
      },
    };
  }
}
