// High-risk holds (spec 3.2): a high-risk chat verb on an item does not act; it parks the
// canonical answer in held_json (replace semantics: the last hold wins) until an operator
// confirms it on the dashboard. A hold older than the TTL reads as absent; its stale JSON
// stays in the column until the next answer or dismiss clears it.

import type { Env } from "../ports.ts";
import { isoZ } from "../time.ts";
import { HoldConfigError, InboxInputError } from "./errors.ts";

export const HOLD_TTL_ENV = "AGENT_MATRIX_HOLD_TTL";
export const HOLD_TTL_DEFAULT_S = 3600;
const HOLD_TTL_MAX_S = 30 * 24 * 3600;

/** What a chat verb wanted to do, as stored in held_json. */
export interface Hold {
  /** The chat answer that was held: approve, reject, revise or answer (free text). */
  verb: string;
  /** Canonical answer text the confirm applies ("approved", "rejected: too risky", …). */
  answer: string;
  /** Matrix user id of the operator who sent the verb. */
  sender: string;
  /** Room to reply in once confirmed. */
  room: string;
  /** When the hold was placed (UTC ISO-Z); the TTL counts from here. */
  held_at: string;
}

/** A hold that is still live, with the instant it stops being live. */
export interface LiveHold extends Hold {
  expires_at: string;
}

/** AGENT_MATRIX_HOLD_TTL in milliseconds. Throws HoldConfigError on a bad value. */
export function holdTtlMsFrom(env: Env): number {
  const raw = env.get(HOLD_TTL_ENV);
  if (raw === undefined || raw.trim() === "") return HOLD_TTL_DEFAULT_S * 1000;
  const text = raw.trim();
  const n = /^\d{1,8}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= HOLD_TTL_MAX_S)) {
    throw new HoldConfigError(
      HOLD_TTL_ENV,
      `${JSON.stringify(raw)} is not a whole number of seconds in 1..${HOLD_TTL_MAX_S}; ` +
        `unset it for the default ${HOLD_TTL_DEFAULT_S}`,
    );
  }
  return n * 1000;
}

/** Checks a hold request from a surface (the chat bot). Throws InboxInputError. */
export function validateHold(raw: Omit<Hold, "held_at">): Omit<Hold, "held_at"> {
  for (const field of ["verb", "answer", "sender", "room"] as const) {
    const v = (raw as unknown as Record<string, unknown>)[field];
    if (typeof v !== "string" || v.trim() === "") {
      throw new InboxInputError(`hold.${field}`, "must be a non-empty string");
    }
  }
  return { verb: raw.verb, answer: raw.answer, sender: raw.sender, room: raw.room };
}

/** The stored hold, or null when the column is empty or not a well-formed hold. */
export function parseHold(json: string | null): Hold | null {
  if (json === null || json === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const fields = ["verb", "answer", "sender", "room", "held_at"] as const;
  for (const f of fields) if (typeof v[f] !== "string") return null;
  if (Number.isNaN(Date.parse(v.held_at as string))) return null;
  return {
    verb: v.verb as string,
    answer: v.answer as string,
    sender: v.sender as string,
    room: v.room as string,
    held_at: v.held_at as string,
  };
}

/**
 * The item's hold if it is live at `now`; null when there is none, it is malformed (fail
 * closed), or it is older than `ttlMs`.
 */
export function liveHold(heldJson: string | null, now: Date, ttlMs: number): LiveHold | null {
  const hold = parseHold(heldJson);
  if (!hold) return null;
  const expires = Date.parse(hold.held_at) + ttlMs;
  if (now.getTime() >= expires) return null;
  return { ...hold, expires_at: isoZ(new Date(expires)) };
}
