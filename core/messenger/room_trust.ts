// Gate layer 2 (spec 5.7): a room is trusted when every member (joined or invited) is the
// bot or an allowlisted operator. A direct-message room (the bot and one operator) is the
// common case of that rule. Member lists are cached per room and dropped whenever a sync
// carries a membership change for the room, so a stranger who joins is seen at once.

import type { RoomMember } from "./transport.ts";

export type RoomVerdict =
  | { trusted: true; dm: boolean }
  | { trusted: false; outsiders: number };

export class RoomTrust {
  readonly #cache = new Map<string, Promise<RoomMember[]>>();
  readonly #members: (room: string) => Promise<RoomMember[]>;
  readonly #allowlist: ReadonlySet<string>;
  #bot: string;

  constructor(
    members: (room: string) => Promise<RoomMember[]>,
    allowlist: ReadonlySet<string>,
    bot: string,
  ) {
    this.#members = members;
    this.#allowlist = allowlist;
    this.#bot = bot;
  }

  set bot(id: string) {
    this.#bot = id;
  }

  /** Forgets a room's members (a membership event arrived, or the bot left). */
  invalidate(room: string): void {
    this.#cache.delete(room);
  }

  async verdict(room: string): Promise<RoomVerdict> {
    let pending = this.#cache.get(room);
    if (!pending) {
      pending = this.#members(room);
      this.#cache.set(room, pending);
      pending.catch(() => this.#cache.delete(room)); // a failed read is retried next time
    }
    const members = await pending;
    const outsiders =
      members.filter((m) => m.user_id !== this.#bot && !this.#allowlist.has(m.user_id)).length;
    if (outsiders > 0) return { trusted: false, outsiders };
    return { trusted: true, dm: members.length <= 2 };
  }

  get size(): number {
    return this.#cache.size;
  }
}
