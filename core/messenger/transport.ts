// What the bot needs from a Matrix homeserver, as a small interface: the sync long poll,
// sending a message, joining a room and reading a room's members. matrix_sdk_transport.ts
// implements it with matrix-js-sdk; only that file imports the library, and only when the
// messenger is configured (it is loaded through a dynamic import; see server/messenger/).

/** One timeline or state event as the bot reads it from /sync. */
export interface MatrixEvent {
  type: string;
  sender: string;
  event_id: string;
  state_key?: string;
  origin_server_ts?: number;
  content: Record<string, unknown>;
}

/** The parts of a /sync response the bot reads (client-server API v3). */
export interface SyncResponse {
  next_batch: string;
  rooms?: {
    join?: Record<string, {
      timeline?: { events?: MatrixEvent[]; limited?: boolean };
      state?: { events?: MatrixEvent[] };
    }>;
    invite?: Record<string, unknown>;
    leave?: Record<string, unknown>;
  };
}

/** A room member who is joined or invited (invited people can read what is said next). */
export interface RoomMember {
  user_id: string;
  membership: "join" | "invite";
}

export interface SendOptions {
  /** Event id this message answers (m.in_reply_to). */
  replyTo?: string;
  signal?: AbortSignal;
}

export interface MatrixTransport {
  /** The bot's own user id (whoami). */
  whoami(signal?: AbortSignal): Promise<string>;
  /** One long poll; `since` null is the initial sync. */
  sync(since: string | null, timeoutMs: number, signal: AbortSignal): Promise<SyncResponse>;
  /** Posts a plain-text notice; resolves with the event id. */
  send(room: string, text: string, options?: SendOptions): Promise<string>;
  join(room: string, signal?: AbortSignal): Promise<void>;
  members(room: string, signal?: AbortSignal): Promise<RoomMember[]>;
  /** Releases the client (no timers or sockets left). */
  close(): void;
}

export interface TransportOptions {
  homeserver: string;
  token: string;
  fetch: typeof globalThis.fetch;
}

/** What the lazily loaded transport module exports. */
export type TransportFactory = (options: TransportOptions) => MatrixTransport;
