// The live feed behind GET /api/events: routes, the scheduler and the inbox service publish
// small change pings; each open event stream subscribes. The last events are kept so a
// reconnecting page can replay what it missed (Last-Event-ID).

import type { Clock } from "../../core/ports.ts";
import { isoZ } from "../../core/time.ts";
import type { DistributiveOmit, LiveEvent, LiveEvents } from "../deps.ts";

const KEEP = 200;

interface Subscriber {
  listener: (event: LiveEvent) => void;
  onClose: (() => void) | undefined;
}

export class LiveFeed implements LiveEvents {
  readonly #clock: Clock;
  readonly #subscribers = new Set<Subscriber>();
  readonly #kept: LiveEvent[] = [];
  #seq = 0;
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get seq(): number {
    return this.#seq;
  }

  get closed(): boolean {
    return this.#closed;
  }

  publish(event: DistributiveOmit<LiveEvent, "seq" | "at">): void {
    if (this.#closed) return;
    const full = { ...event, seq: ++this.#seq, at: isoZ(this.#clock.now()) } as LiveEvent;
    this.#kept.push(full);
    if (this.#kept.length > KEEP) this.#kept.shift();
    for (const s of [...this.#subscribers]) {
      try {
        s.listener(full);
      } catch { /* one broken stream must not stop the others */ }
    }
  }

  subscribe(listener: (event: LiveEvent) => void, onClose?: () => void): () => void {
    const sub: Subscriber = { listener, onClose };
    if (this.#closed) {
      onClose?.();
      return () => {};
    }
    this.#subscribers.add(sub);
    return () => this.#subscribers.delete(sub);
  }

  since(seq: number): LiveEvent[] {
    return this.#kept.filter((e) => e.seq > seq);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const subs = [...this.#subscribers];
    this.#subscribers.clear();
    for (const s of subs) {
      try {
        s.onClose?.();
      } catch { /* closing anyway */ }
    }
  }
}
