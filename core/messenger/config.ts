// The messenger's configuration, read once at boot (spec 5.6, 5.8): the four MX_* variables
// (any one missing or blank makes the messenger dormant) and AGENT_MATRIX_VERBS. Reading it
// never imports the Matrix client library.

import type { Env } from "../ports.ts";
import { ANSWER, type Verb, VERBS } from "./grammar.ts";

export const MX_VARS = ["MX_HOMESERVER", "MX_TOKEN", "MX_ROOM", "MX_ALLOWLIST"] as const;
export const VERBS_ENV = "AGENT_MATRIX_VERBS";

/** A verb the gate can switch off: the twelve command words plus the free-text answer. */
export type GatedVerb = Verb | typeof ANSWER;

/** AGENT_MATRIX_VERBS=legacy: run, status, ask and the free-text fall-through only. */
export const LEGACY_VERBS: readonly GatedVerb[] = ["run", "status", "ask", ANSWER];

export class MessengerConfigError extends Error {
  override readonly name = "MessengerConfigError";
  readonly variable: string;
  constructor(variable: string, detail: string) {
    super(`${variable}: ${detail}`);
    this.variable = variable;
  }
}

export interface MessengerConfig {
  homeserver: string;
  token: string;
  /** Default room: scheduled-job and webhook reports, alerts. */
  room: string;
  /** Matrix user ids allowed to drive commands. */
  allowlist: ReadonlySet<string>;
  /** Verbs AGENT_MATRIX_VERBS leaves on. */
  verbs: ReadonlySet<GatedVerb>;
  /** How AGENT_MATRIX_VERBS was given (for refusal messages). */
  verbsSetting: string;
}

export type MessengerSetup =
  | { state: "dormant"; missing: string[]; allowlist_size: number }
  | { state: "configured"; config: MessengerConfig };

/** Comma-separated Matrix user ids, blanks dropped. */
export function parseAllowlist(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * AGENT_MATRIX_VERBS: "enabled" (default, every verb), "legacy", or a comma list of verb
 * names (the free-text fall-through is "answer"). Throws MessengerConfigError on an unknown
 * name, so a typo does not silently switch a verb off.
 */
export function parseVerbs(raw: string | undefined): { verbs: Set<GatedVerb>; setting: string } {
  const text = (raw ?? "").trim();
  const all: GatedVerb[] = [...VERBS, ANSWER];
  if (text === "" || text.toLowerCase() === "enabled") {
    return { verbs: new Set(all), setting: "enabled" };
  }
  if (text.toLowerCase() === "legacy") return { verbs: new Set(LEGACY_VERBS), setting: "legacy" };
  const verbs = new Set<GatedVerb>();
  for (const part of text.split(",")) {
    const name = part.trim().toLowerCase();
    if (name === "") continue;
    if (!(all as string[]).includes(name)) {
      throw new MessengerConfigError(
        VERBS_ENV,
        `unknown verb ${JSON.stringify(part.trim())}; use enabled, legacy, or a comma list of ` +
          all.join(", "),
      );
    }
    verbs.add(name as GatedVerb);
  }
  return { verbs, setting: text };
}

/** Dormant with the missing names, or the whole configuration. Throws MessengerConfigError. */
export function readMessengerSetup(env: Env): MessengerSetup {
  const get = (name: string) => (env.get(name) ?? "").trim();
  const missing = MX_VARS.filter((name) => get(name) === "");
  const allowlist = parseAllowlist(env.get("MX_ALLOWLIST"));
  if (missing.length > 0) return { state: "dormant", missing, allowlist_size: allowlist.length };
  const homeserver = get("MX_HOMESERVER").replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(homeserver);
  } catch {
    throw new MessengerConfigError("MX_HOMESERVER", `${JSON.stringify(homeserver)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new MessengerConfigError("MX_HOMESERVER", "must be an http(s) URL");
  }
  for (const id of allowlist) {
    if (!/^@[^:\s]+:\S+$/.test(id)) {
      throw new MessengerConfigError(
        "MX_ALLOWLIST",
        `${JSON.stringify(id)} is not a Matrix user id (@name:server)`,
      );
    }
  }
  const { verbs, setting } = parseVerbs(env.get(VERBS_ENV));
  return {
    state: "configured",
    config: {
      homeserver,
      token: get("MX_TOKEN"),
      room: get("MX_ROOM"),
      allowlist: new Set(allowlist),
      verbs,
      verbsSetting: setting,
    },
  };
}
