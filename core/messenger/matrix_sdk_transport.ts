// MatrixTransport on matrix-js-sdk (design.md: the Matrix library). The bot uses the SDK's
// HTTP layer (auth header, MatrixError parsing, URL encoding) and runs its own sync loop
// (sync_loop.ts) rather than the SDK's startClient, because spec 3.3 fixes the backoff
// (1 s, 2 s, 4 s … capped) and the pill must report the next retry time; the SDK's own
// sync machinery (timelines, stores, crypto) is not needed by a bot without end-to-end
// encryption. So it imports only the SDK's HTTP layer (lib/http-api), never the package root:
// the root's createClient pulls in the whole client (rooms, crypto, stores), which costs the
// process ~30 MiB of resident memory and ~0.2 s at start; the HTTP layer alone costs ~17 MiB
// (docs/messenger.md, "Figures"). This is the only module that imports the library; it is
// reached only through a dynamic import when all four MX_* variables are set.

import { ClientPrefix, MatrixHttpApi, Method } from "matrix-js-sdk/lib/http-api/index.js";
import { TypedEventEmitter } from "matrix-js-sdk/lib/models/typed-event-emitter.js";
import type { MatrixTransport, RoomMember, SyncResponse, TransportOptions } from "./transport.ts";

/** The SDK logs every request at debug level; the outpost logs what matters itself. */
const quiet = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  getChild() {
    return quiet;
  },
};

/** Only what the bot reads: messages and memberships; no presence, receipts or typing. */
const SYNC_FILTER = JSON.stringify({
  presence: { not_types: ["*"] },
  account_data: { not_types: ["*"] },
  room: {
    account_data: { not_types: ["*"] },
    ephemeral: { not_types: ["*"] },
    state: { types: ["m.room.member"], lazy_load_members: false },
    timeline: { types: ["m.room.message", "m.room.member"], limit: 50 },
  },
});

let txnCounter = 0;

export function createTransport(options: TransportOptions): MatrixTransport {
  // The HTTP layer emits "session logged out" / "no consent" on this emitter; the bot learns
  // of those from the MatrixError each request rejects with, so nothing listens here.
  const http = new MatrixHttpApi(new TypedEventEmitter(), {
    baseUrl: options.homeserver,
    prefix: ClientPrefix.V3,
    accessToken: options.token,
    fetchFn: options.fetch,
    onlyData: true,
    logger: quiet,
  });
  const opts = (signal?: AbortSignal, localTimeoutMs?: number) => ({
    ...(signal ? { abortSignal: signal } : {}),
    ...(localTimeoutMs ? { localTimeoutMs } : {}),
  });
  const enc = encodeURIComponent;
  return {
    async whoami(signal) {
      const r = await http.authedRequest<{ user_id: string }>(
        Method.Get,
        "/account/whoami",
        undefined,
        undefined,
        opts(signal, 30_000),
      );
      return r.user_id;
    },
    sync(since, timeoutMs, signal) {
      const query: Record<string, string> = {
        filter: SYNC_FILTER,
        timeout: String(timeoutMs),
        set_presence: "offline",
      };
      if (since !== null) query.since = since;
      // A little longer than the server's own timeout, so a dead connection is noticed.
      return http.authedRequest<SyncResponse>(
        Method.Get,
        "/sync",
        query,
        undefined,
        opts(signal, timeoutMs + 15_000),
      );
    },
    async send(room, text, o = {}) {
      const content: Record<string, unknown> = { msgtype: "m.notice", body: text };
      if (o.replyTo) content["m.relates_to"] = { "m.in_reply_to": { event_id: o.replyTo } };
      const txn = `outpost-${Date.now()}-${++txnCounter}`;
      const r = await http.authedRequest<{ event_id: string }>(
        Method.Put,
        `/rooms/${enc(room)}/send/m.room.message/${enc(txn)}`,
        undefined,
        content,
        opts(o.signal, 30_000),
      );
      return r.event_id;
    },
    async join(room, signal) {
      await http.authedRequest(
        Method.Post,
        `/join/${enc(room)}`,
        undefined,
        {},
        opts(signal, 30_000),
      );
    },
    async members(room, signal) {
      const r = await http.authedRequest<
        { chunk: { state_key?: string; content?: { membership?: string } }[] }
      >(
        Method.Get,
        `/rooms/${enc(room)}/members`,
        { not_membership: "leave" },
        undefined,
        opts(signal, 30_000),
      );
      const out: RoomMember[] = [];
      for (const ev of r.chunk) {
        const m = ev.content?.membership;
        if (typeof ev.state_key === "string" && (m === "join" || m === "invite")) {
          out.push({ user_id: ev.state_key, membership: m });
        }
      }
      return out;
    },
    close() {
      http.abort(); // rejects any request still in flight, as the client's stopClient did
    },
  };
}
