// Operator set-up of the outpost's Matrix bot against a Synapse homeserver (spec 5.6):
// mints the bot's access token through the admin API with an admin credential, exempts the
// bot from rate limits through the admin override call, and writes the four MX_* variables
// to an env file of mode 0600. The admin token is read from MX_ADMIN_TOKEN (never a flag, so
// it stays out of shell history and `ps`), and is never written anywhere.
//
//   MX_ADMIN_TOKEN=… deno run --allow-net --allow-env --allow-write --allow-read \
//     scripts/matrix_bot_setup.ts --homeserver http://127.0.0.1:8008 --bot @outpost:example.org \
//     --room '!abc:example.org' --allowlist @alice:example.org,@bob:example.org \
//     --env-file /etc/agent-outpost/matrix.env
//
// The bot user must exist (register it once with Synapse's register_new_matrix_user and the
// homeserver's registration_shared_secret; registration stays disabled).

import { parseFlags } from "../cli/args.ts";

export class SetupError extends Error {
  override readonly name = "SetupError";
}

async function adminPost(
  fetchFn: typeof fetch,
  homeserver: string,
  adminToken: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const url = `${homeserver.replace(/\/+$/, "")}${path}`;
  const res = await fetchFn(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) {
    throw new SetupError(`POST ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text);
}

/** POST /_synapse/admin/v1/users/<bot>/login: a new access token for the bot. */
export async function mintBotToken(
  homeserver: string,
  adminToken: string,
  botUserId: string,
  fetchFn: typeof fetch = fetch,
): Promise<string> {
  const r = await adminPost(
    fetchFn,
    homeserver,
    adminToken,
    `/_synapse/admin/v1/users/${encodeURIComponent(botUserId)}/login`,
    {},
  );
  if (typeof r.access_token !== "string") throw new SetupError("the login answer had no token");
  return r.access_token;
}

/** POST /_synapse/admin/v1/users/<user>/override_ratelimit with 0/0: no rate limit. */
export async function exemptFromRateLimits(
  homeserver: string,
  adminToken: string,
  userId: string,
  fetchFn: typeof fetch = fetch,
): Promise<void> {
  await adminPost(
    fetchFn,
    homeserver,
    adminToken,
    `/_synapse/admin/v1/users/${encodeURIComponent(userId)}/override_ratelimit`,
    { messages_per_second: 0, burst_count: 0 },
  );
}

/** The env file's text (one KEY=value a line). */
export function envFileText(vars: Record<string, string>): string {
  return Object.entries(vars).map(([k, v]) => {
    if (/[\n\r]/.test(v)) throw new SetupError(`${k} must be one line`);
    return `${k}=${v}`;
  }).join("\n") + "\n";
}

/** Writes the env file with mode 0600 from the start (never briefly world-readable). */
export async function writeEnvFile(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(tmp, text, { mode: 0o600, createNew: true });
  await Deno.chmod(tmp, 0o600);
  await Deno.rename(tmp, path);
}

const USAGE = "usage: MX_ADMIN_TOKEN=… matrix_bot_setup.ts --homeserver URL --bot @user:server " +
  "--room !room:server --allowlist @a:server[,@b:server] --env-file PATH";

if (import.meta.main) {
  const { values } = parseFlags(Deno.args, {
    homeserver: { type: "string" },
    bot: { type: "string" },
    room: { type: "string" },
    allowlist: { type: "string" },
    "env-file": { type: "string" },
  });
  const get = (k: string) => typeof values[k] === "string" ? values[k] as string : "";
  const admin = Deno.env.get("MX_ADMIN_TOKEN") ?? "";
  const missing = ["homeserver", "bot", "room", "allowlist", "env-file"].filter((k) => !get(k));
  if (missing.length > 0 || admin === "") {
    console.error(USAGE);
    if (admin === "") console.error("MX_ADMIN_TOKEN is not set");
    if (missing.length) console.error(`missing: ${missing.map((m) => `--${m}`).join(", ")}`);
    Deno.exit(2);
  }
  try {
    const homeserver = get("homeserver");
    const token = await mintBotToken(homeserver, admin, get("bot"));
    await exemptFromRateLimits(homeserver, admin, get("bot"));
    await writeEnvFile(
      get("env-file"),
      envFileText({
        MX_HOMESERVER: homeserver,
        MX_TOKEN: token,
        MX_ROOM: get("room"),
        MX_ALLOWLIST: get("allowlist"),
      }),
    );
    console.error(
      `wrote ${get("env-file")} (mode 0600); the bot ${get("bot")} is rate-limit exempt`,
    );
  } catch (err) {
    console.error(`matrix_bot_setup: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  }
}
