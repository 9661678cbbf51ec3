// A real Synapse homeserver for the messenger tests, started once per test run: pip's
// matrix-synapse, a config generated with --generate-config and then overridden (loopback
// only, SQLite, client API only so no federation, registration disabled, a shared
// registration secret), users made with register_new_matrix_user and the bot's token minted
// and its rate limits lifted through the admin API (the same calls as
// scripts/matrix_bot_setup.ts). MatrixUser drives the homeserver as an operator would,
// through the client-server API.

import { exemptFromRateLimits, mintBotToken } from "../../scripts/matrix_bot_setup.ts";
import { freePort } from "./listening_kit.ts";

export interface SynapseUsers {
  admin: MatrixUser;
  alice: MatrixUser;
  bob: MatrixUser;
  stranger: MatrixUser;
  /** The bot's user id and its minted token (the MX_TOKEN value). */
  bot: { userId: string; token: string };
}

export class Synapse {
  readonly url: string;
  readonly dir: string;
  #child: Deno.ChildProcess | null = null;
  readonly #configs: string[];

  private constructor(url: string, dir: string, configs: string[]) {
    this.url = url;
    this.dir = dir;
    this.#configs = configs;
  }

  /** Generates a config in a temp dir and starts the homeserver. */
  static async start(): Promise<Synapse> {
    const dir = await Deno.makeTempDir({ prefix: "synapse_" });
    const port = freePort();
    const main = `${dir}/homeserver.yaml`;
    await run("python3", [
      "-m",
      "synapse.app.homeserver",
      "--server-name",
      "localhost",
      "--config-path",
      main,
      "--data-directory",
      dir,
      "--generate-config",
      "--report-stats=no",
    ], dir);
    const secret = crypto.randomUUID() + crypto.randomUUID();
    const overrides = `${dir}/overrides.yaml`;
    // Later config files override earlier ones key by key.
    await Deno.writeTextFile(
      overrides,
      [
        "listeners:",
        `  - port: ${port}`,
        "    bind_addresses: ['127.0.0.1']",
        "    type: http",
        "    tls: false",
        "    x_forwarded: false",
        "    resources:",
        "      - names: [client]", // no federation resource
        "        compress: false",
        "database:",
        "  name: sqlite3",
        "  args:",
        `    database: ${dir}/homeserver.db`,
        "enable_registration: false",
        `registration_shared_secret: "${secret}"`,
        "federation_domain_whitelist: []",
        "trusted_key_servers: []",
        "suppress_key_server_warning: true",
        "report_stats: false",
        "presence:",
        "  enabled: false",
        "url_preview_enabled: false",
        `log_config: "${dir}/log.yaml"`,
        "",
      ].join("\n"),
    );
    await Deno.writeTextFile(
      `${dir}/log.yaml`,
      [
        "version: 1",
        "formatters:",
        "  plain: {format: '%(asctime)s %(name)s %(levelname)s %(message)s'}",
        "handlers:",
        `  file: {class: logging.FileHandler, formatter: plain, filename: '${dir}/homeserver.log'}`,
        "root: {level: WARNING, handlers: [file]}",
        "disable_existing_loggers: false",
        "",
      ].join("\n"),
    );
    const synapse = new Synapse(`http://127.0.0.1:${port}`, dir, [main, overrides]);
    await synapse.resume();
    return synapse;
  }

  get secretConfig(): string {
    return this.#configs[1]!;
  }

  /** Starts (again) on the same config and data; resolves once the client API answers. */
  async resume(): Promise<void> {
    if (this.#child) throw new Error("synapse already running");
    this.#child = new Deno.Command("python3", {
      args: ["-m", "synapse.app.homeserver", ...this.#configs.flatMap((c) => ["-c", c])],
      cwd: this.dir,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(this.#child.stderr).text();
    const exited = this.#child.status.then(async (s) => {
      throw new Error(`synapse exited (${s.code}): ${(await stderr).slice(-2000)}`);
    });
    exited.catch(() => {});
    const ready = (async () => {
      for (;;) {
        try {
          const res = await fetch(`${this.url}/_matrix/client/versions`);
          await res.body?.cancel();
          if (res.ok) return;
        } catch { /* not listening yet */ }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await Promise.race([ready, exited]);
  }

  /**
   * Stops the homeserver and waits for it to exit. SIGKILL, as in a crash: on SIGTERM
   * Synapse first waits for open long polls (up to 30 s) to end.
   */
  async pause(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    child.kill("SIGKILL");
    await child.status;
  }

  /** Makes the users of the tests: admin, two operators, a stranger and the bot. */
  async users(): Promise<SynapseUsers> {
    const names = ["admin", "alice", "bob", "stranger", "outpost-bot"];
    await Promise.all(names.map((name) =>
      run("register_new_matrix_user", [
        "-u",
        name,
        "-p",
        `pw-${name}`,
        name === "admin" ? "--admin" : "--no-admin",
        "-c",
        this.#configs[1]!,
        this.url,
      ], this.dir)
    ));
    const login = (name: string) => MatrixUser.login(this.url, name, `pw-${name}`);
    const [admin, alice, bob, stranger] = await Promise.all(
      ["admin", "alice", "bob", "stranger"].map(login),
    ) as [MatrixUser, MatrixUser, MatrixUser, MatrixUser];
    const botId = "@outpost-bot:localhost";
    const token = await mintBotToken(this.url, admin.token, botId);
    await exemptFromRateLimits(this.url, admin.token, botId);
    // The operators send bursts (rate-limit and latency tests): lift Synapse's own limits.
    for (const u of [alice, bob, stranger]) {
      await exemptFromRateLimits(this.url, admin.token, u.userId);
    }
    return { admin, alice, bob, stranger, bot: { userId: botId, token } };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.pause();
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

/** A message as an operator sees it in a room. */
export interface SeenMessage {
  event_id: string;
  sender: string;
  body: string;
  reply_to: string | null;
}

/** One Matrix account driven through the client-server API. */
export class MatrixUser {
  readonly url: string;
  readonly userId: string;
  readonly token: string;
  #since: string | null = null;
  #txn = 0;
  /** Messages seen by sync, not yet taken by a wait. */
  readonly #inbox: (SeenMessage & { room: string })[] = [];
  /** Joins seen by sync: "room user". */
  readonly #joins = new Set<string>();

  constructor(url: string, userId: string, token: string) {
    this.url = url;
    this.userId = userId;
    this.token = token;
  }

  static async login(url: string, user: string, password: string): Promise<MatrixUser> {
    const res = await fetch(`${url}/_matrix/client/v3/login`, {
      method: "POST",
      body: JSON.stringify({
        type: "m.login.password",
        identifier: { type: "m.id.user", user },
        password,
      }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`login ${user}: ${JSON.stringify(body)}`);
    return new MatrixUser(url, body.user_id, body.access_token);
  }

  async api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.url}/_matrix/client/v3${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const out = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  }

  async createRoom(invite: string[], name = "room"): Promise<string> {
    const r = await this.api("POST", "/createRoom", { invite, name, preset: "private_chat" });
    return r.room_id as string;
  }

  async invite(room: string, userId: string): Promise<void> {
    await this.api("POST", `/rooms/${encodeURIComponent(room)}/invite`, { user_id: userId });
  }

  async join(room: string): Promise<void> {
    await this.api("POST", `/join/${encodeURIComponent(room)}`, {});
  }

  async send(room: string, body: string): Promise<string> {
    const txn = `t${Date.now()}-${++this.#txn}`;
    const r = await this.api(
      "PUT",
      `/rooms/${encodeURIComponent(room)}/send/m.room.message/${txn}`,
      { msgtype: "m.text", body },
    );
    return r.event_id as string;
  }

  /** Joined member ids of a room. */
  async members(room: string): Promise<string[]> {
    const r = await this.api("GET", `/rooms/${encodeURIComponent(room)}/joined_members`);
    return Object.keys(r.joined as Record<string, unknown>);
  }

  /**
   * Every message in `room` so far, oldest first, read from the room's history
   * (/messages), not from this user's sync: nothing depends on what a sync has seen yet.
   */
  async history(room: string): Promise<SeenMessage[]> {
    const q = new URLSearchParams({ dir: "b", limit: "1000" });
    const r = await this.api("GET", `/rooms/${encodeURIComponent(room)}/messages?${q}`);
    const events = (r.chunk ?? []) as Record<string, unknown>[];
    return events.filter((e) => e.type === "m.room.message").reverse().map((e) => {
      const content = e.content as Record<string, unknown>;
      const rel = content["m.relates_to"] as
        | { "m.in_reply_to"?: { event_id?: string } }
        | undefined;
      return {
        event_id: e.event_id as string,
        sender: e.sender as string,
        body: String(content.body ?? ""),
        reply_to: rel?.["m.in_reply_to"]?.event_id ?? null,
      };
    });
  }

  /** Marks "now": later waits only see messages sent after this call. */
  async mark(): Promise<void> {
    await this.#sync(0);
    this.#inbox.length = 0;
  }

  /**
   * Waits (on the sync long poll) for a message in `room` matching `match`, seen after the
   * last mark. Fails after `limitMs` so a missing reply fails the test instead of hanging.
   */
  async waitFor(
    room: string,
    match: (m: SeenMessage) => boolean,
    limitMs = 30_000,
  ): Promise<SeenMessage> {
    const end = Date.now() + limitMs;
    for (;;) {
      const i = this.#inbox.findIndex((m) => m.room === room && match(m));
      if (i >= 0) return this.#inbox.splice(i, 1)[0]!;
      const left = end - Date.now();
      if (left <= 0) {
        throw new Error(
          `no matching message in ${room} within ${limitMs} ms; seen: ${
            JSON.stringify(this.#inbox.filter((m) => m.room === room).map((m) => m.body))
          }`,
        );
      }
      await this.#sync(Math.min(left, 5000));
    }
  }

  /** Waits (on the sync long poll) until `userId` has joined `room`. */
  async waitForJoin(room: string, userId: string, limitMs = 30_000): Promise<void> {
    const end = Date.now() + limitMs;
    while (!this.#joins.has(`${room} ${userId}`)) {
      const left = end - Date.now();
      if (left <= 0) throw new Error(`${userId} did not join ${room} within ${limitMs} ms`);
      await this.#sync(Math.min(left, 5000));
    }
  }

  /** The bot's reply to event `eventId`. */
  replyTo(room: string, eventId: string, limitMs?: number): Promise<SeenMessage> {
    return this.waitFor(room, (m) => m.reply_to === eventId, limitMs);
  }

  /** Sends `body` and waits for the bot's reply to it. */
  async command(room: string, body: string): Promise<string> {
    const id = await this.send(room, body);
    return (await this.replyTo(room, id)).body;
  }

  async #sync(timeout: number): Promise<void> {
    const filter = JSON.stringify({
      presence: { not_types: ["*"] },
      room: {
        timeline: { types: ["m.room.message", "m.room.member"], limit: 100 },
        state: { types: ["m.room.member"] },
      },
    });
    const q = new URLSearchParams({ timeout: String(timeout), filter });
    if (this.#since) q.set("since", this.#since);
    const r = await this.api("GET", `/sync?${q}`);
    const first = this.#since === null;
    this.#since = r.next_batch as string;
    const join = ((r.rooms as Record<string, unknown> | undefined)?.join ?? {}) as Record<
      string,
      {
        timeline?: { events?: Record<string, unknown>[] };
        state?: { events?: Record<string, unknown>[] };
      }
    >;
    for (const [room, data] of Object.entries(join)) {
      for (const e of [...(data.state?.events ?? []), ...(data.timeline?.events ?? [])]) {
        const c = e.content as { membership?: string };
        if (e.type === "m.room.member" && c.membership === "join") {
          this.#joins.add(`${room} ${e.state_key}`);
        }
      }
      if (first) continue;
      for (const e of data.timeline?.events ?? []) {
        if (e.type !== "m.room.message") continue;
        const content = e.content as Record<string, unknown>;
        const rel = content["m.relates_to"] as
          | { "m.in_reply_to"?: { event_id?: string } }
          | undefined;
        this.#inbox.push({
          room,
          event_id: e.event_id as string,
          sender: e.sender as string,
          body: String(content.body ?? ""),
          reply_to: rel?.["m.in_reply_to"]?.event_id ?? null,
        });
      }
    }
  }
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    const dec = new TextDecoder();
    throw new Error(
      `${cmd} ${args.join(" ")} failed (${out.code}): ${dec.decode(out.stderr)}${
        dec.decode(out.stdout)
      }`,
    );
  }
}
