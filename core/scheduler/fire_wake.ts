// When the scheduler fires due jobs besides its 60-second tick (fire lag, issue 32). The tick's
// cadence has its own phase, so a slot waited up to a whole tick for it (a job due at 09:00 began
// at 09:00:42). The loop now also wakes at the earliest upcoming slot of the enabled jobs, and in a
// fleet shortly after one of its runs finishes: a slot this node's governor deferred for the fleet
// (fire.ts) then fires as soon as a runner is free, not at the next tick. One box skips such a
// slot at once (spec 3.1), so it has nothing to wait for there.

import type { Store } from "../store/store.ts";
import { isoZ } from "../time.ts";

/** After a run ends in a fleet, how soon deferred slots are looked at again (at most once per). */
export const REFIRE_MS = 1_000;

export class FireWake {
  /** Epoch ms of the earliest upcoming slot, as of the last plan. */
  #slotAt = Infinity;
  /** Epoch ms when due jobs are looked at again because a runner came free (fleet only). */
  #refireAt = Infinity;

  /** Reads the earliest slot after `now`; returns the earliest of it and a pending re-fire. */
  plan(store: Pick<Store, "nextSlotAfter">, now: number): number {
    const slot = store.nextSlotAfter(isoZ(new Date(now)));
    this.#slotAt = slot === null ? Infinity : Date.parse(slot);
    return Math.min(this.#slotAt, this.#refireAt);
  }

  /** Whether due jobs fire at `now` for a slot or a re-fire (each is used once). */
  take(now: number): boolean {
    if (now < this.#slotAt && now < this.#refireAt) return false;
    this.#slotAt = Infinity;
    this.#refireAt = Infinity;
    return true;
  }

  /** A fleet's run ended: a runner is free for a slot the governor deferred. */
  runnerFreed(now: number): void {
    this.#refireAt = Math.min(this.#refireAt, now + REFIRE_MS);
  }
}
