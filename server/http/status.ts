// The messenger pill and the push badge (spec 3.3, 5.5, 5.6), computed from the
// environment and the store. Neither imports the Matrix or web-push libraries: a dormant
// lane must cost nothing, and the status must not either.

import type { Env } from "../../core/ports.ts";
import type { VapidKeyFile } from "../../core/push/vapid.ts";
import type { Store } from "../../core/store/store.ts";
import type { MessengerStatus, PushStatus } from "../deps.ts";
import { MX_VARS, parseAllowlist } from "../../core/messenger/config.ts";

export { MX_VARS };

/** Live state a running Matrix bot reports (core/messenger/bot.ts: BotStatus). */
export interface MessengerProbe {
  state: "ok" | "error";
  detail?: string;
  next_retry_at?: string;
  last_sync_at?: string;
}

/**
 * Dormant with the missing names when any MX_* variable is unset or blank. With all four
 * set, the bot's own report decides; with no bot running the pill says error, with why.
 */
export function messengerStatus(env: Env, probe: MessengerProbe | null): MessengerStatus {
  const missing = MX_VARS.filter((name) => (env.get(name) ?? "").trim() === "");
  const allowlist_size = parseAllowlist(env.get("MX_ALLOWLIST")).length;
  if (missing.length > 0) return { state: "dormant", missing, allowlist_size };
  if (!probe) {
    return {
      state: "error",
      missing: [],
      allowlist_size,
      detail: "all MX_* variables are set but the Matrix bot is not running",
    };
  }
  return {
    state: probe.state,
    missing: [],
    allowlist_size,
    ...(probe.detail === undefined ? {} : { detail: probe.detail }),
    ...(probe.next_retry_at === undefined ? {} : { next_retry_at: probe.next_retry_at }),
    ...(probe.last_sync_at === undefined ? {} : { last_sync_at: probe.last_sync_at }),
  };
}

/** The push badge (spec 5.5): dormant without VAPID_PRIVATE_KEY_FILE, else ok or error. */
export function pushStatus(
  keys: VapidKeyFile,
  store: Pick<Store, "listPushSubscriptions">,
): PushStatus {
  const devices = store.listPushSubscriptions().length;
  const loaded = keys.load();
  if (loaded.state === "dormant") return { state: "dormant", devices, missing: loaded.missing };
  if (loaded.state === "error") {
    return { state: "error", devices, missing: [], detail: loaded.detail };
  }
  return { state: "ok", public_key: loaded.keys.publicKey, devices, missing: [] };
}
