// The worker thread that owns the PostgreSQL client (npm:postgres) for pg_connection.ts. The
// main thread posts one request at a time and sleeps on a shared word (Atomics.wait) until
// this worker has written the reply into shared memory, so the Store stays synchronous
// (core/store/README.md: "PostgreSQL: a synchronous bridge").
//
// One connection (max: 1), never recycled (max_lifetime 0): a transaction, and the session
// advisory locks of leadership, live on it. When it drops, the client reconnects on the next
// request and the reply says `lost`, so the main side can refuse to go on with a transaction
// the server has already rolled back. Each session has a number (the closes counted so far):
// a statement of a transaction names the session that began it, and is refused unsent when
// that session is gone, so it never runs on a new session outside its transaction.

/// <reference lib="deno.worker" />

import postgres from "postgres";

export interface PgRequest {
  /** query: one statement with $n parameters; exec: statements without parameters. */
  kind: "query" | "exec";
  sql: string;
  params: unknown[];
  /** Inside a transaction: the session that began it; refused unsent on any other. */
  session?: number;
}

export interface PgInit {
  url: string;
  /** [0] = 1 when a reply is ready; [1] = its length in bytes. */
  control: SharedArrayBuffer;
  /** Growable: the reply's JSON text. */
  data: SharedArrayBuffer;
  application: string;
}

export type PgReply =
  | { ok: true; rows: Record<string, unknown>[]; count: number; session: number }
  | {
    ok: false;
    message: string;
    code: string;
    lost: boolean;
    /** Lost, and certainly never reached the server (it could not be connected to). */
    unsent: boolean;
  };

const asNumber = (x: string) => Number(x);
let client: ReturnType<typeof postgres> | null = null;
let control: Int32Array;
let data: SharedArrayBuffer;
const encoder = new TextEncoder();
/** Sessions closed so far: the number of the current (or next) session. */
let closes = 0;

/** Connection-level failures: the session (and any transaction on it) is gone. */
function isLost(code: string): boolean {
  return !/^[0-9A-Z]{5}$/.test(code) || code.startsWith("08") || code.startsWith("57P");
}

/**
 * Failures of the connect step itself, before any statement was written: refused, timed out,
 * no such host, or a server starting up or shutting down (57P03). Anything else that loses
 * the session may have reached the server.
 */
const UNSENT = new Set([
  "ECONNREFUSED",
  "CONNECT_TIMEOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "57P03",
]);

function reply(message: PgReply): void {
  const bytes = encoder.encode(JSON.stringify(message));
  if (bytes.length > data.byteLength) data.grow(bytes.length);
  new Uint8Array(data, 0, bytes.length).set(bytes);
  Atomics.store(control, 1, bytes.length);
  Atomics.store(control, 0, 1);
  Atomics.notify(control, 0);
}

async function run(request: PgRequest): Promise<PgReply> {
  if (request.session !== undefined && request.session !== closes) {
    // The transaction's session closed since it began: the server rolled the transaction
    // back, and the client would run this statement on a new session, outside it.
    const message = "the session of this transaction ended (the server restarted or the " +
      "connection dropped)";
    return { ok: false, message, code: "08006", lost: true, unsent: true };
  }
  try {
    const result = request.kind === "exec"
      ? await client!.unsafe(request.sql)
      : await client!.unsafe(request.sql, request.params as never[], { prepare: true });
    return { ok: true, rows: [...result], count: result.count ?? result.length, session: closes };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    const code = String(e.code ?? "UNKNOWN");
    const lost = isLost(code);
    return { ok: false, message: e.message ?? String(err), code, lost, unsent: UNSENT.has(code) };
  }
}

self.onmessage = async (event: MessageEvent<PgInit | PgRequest>) => {
  const message = event.data;
  if ("url" in message) {
    control = new Int32Array(message.control);
    data = message.data;
    client = postgres(message.url, {
      max: 1,
      max_lifetime: 0,
      idle_timeout: 0,
      connect_timeout: 10,
      fetch_types: false,
      onnotice: () => {},
      onclose: () => closes++,
      // Reconnect at once when asked: the store paces its tries itself (pg_reconnect.ts), and
      // the client's own backoff grows to 20 s between connects after a few refusals.
      backoff: () => 0,
      connection: { application_name: message.application },
      // COUNT and BIGINT ids arrive as int8, SUMs as numeric: both as numbers, as SQLite has.
      types: {
        int8: { to: 20, from: [20], serialize: String, parse: asNumber },
        numeric: { to: 1700, from: [1700], serialize: String, parse: asNumber },
      },
    });
    return;
  }
  reply(await run(message));
};
