// A small HTTP/1.1 client for model servers on plain http: a self-hosted vLLM, llama-server
// or LiteLLM on loopback or the LAN, where a turn's own overhead is what a user waits on.
//
// Why hand-written: Deno 2.9.6 builds fetch's JavaScript (fetch, Request and Response,
// Headers, web streams) on first use. A script that fetched a model listing and one streamed
// reply spent 16.5 ms beyond an empty `deno run`; the same two requests over Deno.connect spent
// 6.8 ms (21 interleaved rounds), a sixth of a whole headless turn. Through the agent's
// launcher, one headless turn took 0.88x (chat_completions) and 0.89x (messages) of the same
// turn over fetch (scripts/bench_processes.ts, 41 rounds, 2026-11-26).
//
// It speaks only what the wires need: one request per connection (`connection: close`), a body
// framed by Content-Length, chunked encoding or the connection's close, and no compression
// asked for (a gzip or deflate answer is still decoded). Everything else goes to fetch, so its
// semantics stay Deno's: https, any proxy variable in the environment, and redirects (fetch
// re-sends the request and follows them). modelServerFetch() makes that choice per request.

import { concatBytes } from "../bytes.ts";
import type { Env, Fetch, WireFetch, WireReader, WireRequestInit, WireResponse } from "../ports.ts";

/** Requests to `http:` URLs go over plainHttpFetch unless a proxy is set; all else to fetch. */
export function modelServerFetch(env: Env, fallback: Fetch = globalThis.fetch): WireFetch {
  const proxied = PROXY_VARIABLES.some((name) => (env.get(name) ?? "") !== "");
  return (url, init) =>
    !proxied && url.startsWith("http:") ? plainHttpFetch(url, init, fallback) : fallback(url, init);
}

/** The variables Deno's fetch reads a proxy for an http URL from (NO_PROXY is left to it). */
const PROXY_VARIABLES = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** A response head larger than this is not a model server's. */
const MAX_HEAD_BYTES = 64 * 1024;
const READ_SIZE = 64 * 1024;
const CRLF = [13, 10];
const CRLF_CRLF = [13, 10, 13, 10];

/**
 * One request to an `http:` URL. Resolves once the response head arrived; the body streams.
 * Failures reject as fetch's do: a TypeError for a bad request, the signal's reason on abort,
 * the connection's own error otherwise. Two cases go to `fallback` (fetch) instead:
 * - a connection this client cannot open. Deno.connect tries only the first address a name
 *   resolves to (`localhost` is 127.0.0.1 or ::1), where fetch tries each; and for a server
 *   that is down, fetch's error is the one users already know. Nothing was sent yet.
 * - a redirect, which fetch follows as browsers do (it sends the request again).
 */
export async function plainHttpFetch(
  url: string,
  init: WireRequestInit = {},
  fallback: Fetch = globalThis.fetch,
): Promise<WireResponse> {
  const target = new URL(url);
  if (target.protocol !== "http:") throw new TypeError(`plainHttpFetch: not an http URL: ${url}`);
  const method = (init.method ?? "GET").toUpperCase();
  const payload = init.body === undefined ? undefined : new TextEncoder().encode(init.body);
  const head = requestHead(method, target, init.headers ?? {}, payload);
  const signal = init.signal;
  signal?.throwIfAborted();

  const hostname = target.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = target.port === "" ? 80 : Number(target.port);
  let socket: Deno.Conn;
  try {
    socket = await abortable(Deno.connect({ hostname, port }), signal);
  } catch {
    if (signal?.aborted) throw signal.reason;
    return await fallback(url, init);
  }
  const conn = new Connection(socket);
  try {
    conn.watch(signal);
    await conn.writeAll(payload ? concatBytes([head, payload]) : head);
    let response: ResponseHead;
    do response = parseHead(await conn.readHead()); while (response.status < 200);
    if (REDIRECTS.has(response.status) && response.headers.has("location")) {
      conn.close();
      return await fallback(url, init);
    }
    const bodyless = method === "HEAD" || response.status === 204 || response.status === 304;
    const body = bodyless ? () => Promise.resolve(null) : bodyOf(conn, response);
    return new PlainResponse(response, body, () => conn.close());
  } catch (e) {
    conn.close();
    throw conn.failure(e);
  }
}

/** The request line and headers as bytes; header values must be byte strings, as for fetch. */
function requestHead(
  method: string,
  target: URL,
  headers: Record<string, string>,
  payload: Uint8Array | undefined,
): Uint8Array {
  if (!TOKEN.test(method)) throw new TypeError(`Invalid HTTP method: ${method}`);
  const lines = [`${method} ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`];
  const given = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new TypeError(`Invalid header name: ${name}`);
    if (/[\0\r\n]|[^\0-\xff]/.test(value)) {
      throw new TypeError(`Invalid header value for ${name}`);
    }
    const lower = name.toLowerCase();
    if (FRAMING_HEADERS.has(lower)) continue; // this client frames the message itself
    given.add(lower);
    lines.push(`${lower}: ${value.trim()}`);
  }
  if (!given.has("accept")) lines.push("accept: */*");
  if (!given.has("user-agent")) lines.push(`user-agent: Deno/${Deno.version.deno}`);
  if (payload !== undefined || method === "POST" || method === "PUT") {
    lines.push(`content-length: ${payload?.length ?? 0}`);
  }
  lines.push("accept-encoding: identity", "connection: close");
  const text = lines.join("\r\n") + "\r\n\r\n";
  return Uint8Array.from(text, (c) => c.charCodeAt(0)); // Latin-1: one byte per character
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FRAMING_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "accept-encoding",
]);

interface ResponseHead {
  status: number;
  headers: Map<string, string>;
}

function parseHead(bytes: Uint8Array): ResponseHead {
  const text = new TextDecoder("latin1").decode(bytes);
  const [statusLine = "", ...lines] = text.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!status) throw new ProtocolError(`not an HTTP/1.1 status line: ${statusLine.slice(0, 80)}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new ProtocolError(`malformed header line: ${line.slice(0, 80)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const seen = headers.get(name);
    headers.set(name, seen === undefined ? value : `${seen}, ${value}`);
  }
  return { status: Number(status[1]), headers };
}

/** The server broke HTTP/1.1 framing (a transport error for the wires, like fetch's). */
class ProtocolError extends Error {
  override name = "ProtocolError";
}

/** A body is a source of chunks: the next one, or null at its end. */
type ChunkSource = () => Promise<Uint8Array | null>;

function bodyOf(conn: Connection, head: ResponseHead): ChunkSource {
  const coding = head.headers.get("transfer-encoding")?.toLowerCase();
  const length = head.headers.get("content-length");
  let source: ChunkSource;
  if (coding !== undefined && coding.split(",").at(-1)?.trim() === "chunked") {
    source = chunkedBody(conn);
  } else if (length !== undefined) {
    if (!/^\d+$/.test(length)) throw new ProtocolError(`bad content-length: ${length}`);
    source = sizedBody(conn, Number(length));
  } else {
    source = () => conn.readSome();
  }
  const encoding = head.headers.get("content-encoding")?.toLowerCase() ?? "identity";
  return encoding === "identity" ? source : decompressed(source, encoding);
}

function sizedBody(conn: Connection, size: number): ChunkSource {
  let left = size;
  return async () => {
    if (left === 0) return null;
    const chunk = await conn.readSome(left);
    if (chunk === null) throw new ProtocolError(`the body ended ${left} bytes short`);
    left -= chunk.length;
    return chunk;
  };
}

/** Chunked transfer coding (RFC 9112 §7.1); chunk extensions and trailers are skipped. */
function chunkedBody(conn: Connection): ChunkSource {
  let left = 0;
  let ended = false;
  return async () => {
    if (ended) return null;
    if (left === 0) {
      const sizeLine = await conn.readLine();
      const size = /^([0-9A-Fa-f]+)[ \t]*(;.*)?$/.exec(sizeLine);
      if (!size) throw new ProtocolError(`bad chunk size: ${sizeLine.slice(0, 40)}`);
      left = parseInt(size[1]!, 16);
      if (left === 0) {
        // Trailers, then the empty line that ends the message (a close instead is let pass).
        while (((await conn.readLine(true)) ?? "") !== "");
        ended = true;
        return null;
      }
    }
    const chunk = await conn.readSome(left);
    if (chunk === null) throw new ProtocolError("the body ended inside a chunk");
    left -= chunk.length;
    if (left === 0 && (await conn.readLine()) !== "") {
      throw new ProtocolError("a chunk did not end with CRLF");
    }
    return chunk;
  };
}

/** gzip or deflate, which a server may send although identity was asked for. */
function decompressed(source: ChunkSource, encoding: string): ChunkSource {
  const format = encoding === "gzip" || encoding === "x-gzip"
    ? "gzip"
    : encoding === "deflate"
    ? "deflate"
    : null;
  if (format === null) throw new ProtocolError(`unsupported content-encoding: ${encoding}`);
  const raw = new ReadableStream<BufferSource>({
    async pull(controller) {
      const chunk = await source();
      if (chunk === null) controller.close();
      else controller.enqueue(chunk as Uint8Array<ArrayBuffer>); // views of our own buffers
    },
  });
  const reader = raw.pipeThrough(new DecompressionStream(format)).getReader();
  return async () => {
    const { done, value } = await reader.read();
    return done ? null : value;
  };
}

/** The connection of one exchange: buffered reads, abort, one close. */
class Connection {
  #conn: Deno.Conn;
  #pending: Uint8Array = new Uint8Array(0);
  #closed = false;
  #signal: AbortSignal | undefined;
  #onAbort = () => this.close();

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** An abort closes the connection; the read it interrupts then rejects with the reason. */
  watch(signal: AbortSignal | undefined): void {
    this.#signal = signal;
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** An error as the caller should see it: the abort's reason when the signal fired. */
  failure(e: unknown): unknown {
    return this.#signal?.aborted ? this.#signal.reason : e;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    try {
      this.#conn.close();
    } catch { /* already closed by the peer's reset: nothing left to release */ }
  }

  async writeAll(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) at += await this.#conn.write(bytes.subarray(at));
  }

  /** The bytes up to and including the blank line that ends a response head. */
  async readHead(): Promise<Uint8Array> {
    for (let from = 0;;) {
      const end = indexOf(this.#pending, CRLF_CRLF, from);
      if (end >= 0) return this.#take(end + 4);
      if (this.#pending.length > MAX_HEAD_BYTES) throw new ProtocolError("response head too large");
      from = Math.max(0, this.#pending.length - 3);
      if (!(await this.#fill())) {
        throw new ProtocolError(
          this.#pending.length === 0
            ? "the server closed the connection without a response"
            : "the server closed the connection inside the response head",
        );
      }
    }
  }

  /** One line without its CRLF (chunk sizes and trailers); null at the end if `endOk`. */
  async readLine(endOk: true): Promise<string | null>;
  async readLine(): Promise<string>;
  async readLine(endOk = false): Promise<string | null> {
    for (let from = 0;;) {
      const end = indexOf(this.#pending, CRLF, from);
      if (end >= 0) {
        const line = this.#take(end + 2).subarray(0, end);
        return new TextDecoder("latin1").decode(line);
      }
      if (this.#pending.length > MAX_HEAD_BYTES) throw new ProtocolError("line too long");
      from = Math.max(0, this.#pending.length - 1);
      if (!(await this.#fill())) {
        if (endOk && this.#pending.length === 0) return null;
        throw new ProtocolError("the body ended inside a line");
      }
    }
  }

  /** What is buffered or arrives next (at most `max` bytes), or null once the peer closed. */
  async readSome(max = Infinity): Promise<Uint8Array | null> {
    if (this.#pending.length === 0 && !(await this.#fill())) {
      this.close();
      return null;
    }
    return this.#take(Math.min(max, this.#pending.length));
  }

  #take(n: number): Uint8Array {
    const taken = this.#pending.subarray(0, n);
    this.#pending = this.#pending.subarray(n);
    return taken;
  }

  /** Reads once more from the socket; false at its end. */
  async #fill(): Promise<boolean> {
    if (this.#closed) {
      this.#signal?.throwIfAborted();
      throw new Deno.errors.BadResource("the connection is closed");
    }
    const buffer = new Uint8Array(READ_SIZE);
    let n: number | null;
    try {
      n = await this.#conn.read(buffer);
    } catch (e) {
      throw this.failure(e);
    }
    if (n === null) return false;
    this.#pending = this.#pending.length === 0
      ? buffer.subarray(0, n)
      : concatBytes([this.#pending, buffer.subarray(0, n)]);
    return true;
  }
}

/** A response whose body is read from the connection on demand, once. */
class PlainResponse implements WireResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: WireResponse["headers"];
  readonly body: NonNullable<WireResponse["body"]>;

  constructor(head: ResponseHead, next: ChunkSource, close: () => void) {
    this.ok = head.status >= 200 && head.status < 300;
    this.status = head.status;
    this.headers = { get: (name) => head.headers.get(name.toLowerCase()) ?? null };
    let ended = false;
    const end = () => {
      ended = true;
      close();
    };
    const reader: WireReader = {
      read: async () => {
        const value = ended ? null : await next();
        if (value === null) end();
        return value === null ? { done: true } : { done: false, value };
      },
      cancel: () => Promise.resolve(end()),
      releaseLock: () => {},
    };
    let locked = false;
    this.body = {
      getReader: () => {
        if (locked) throw new TypeError("the body is already being read");
        locked = true;
        return reader;
      },
      cancel: () => reader.cancel(),
    };
  }

  async text(): Promise<string> {
    const reader = this.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
    }
    return text + decoder.decode();
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/** The connection, or the abort's reason first; a connection that arrives after it is closed. */
async function abortable(
  connecting: Promise<Deno.Conn>,
  signal: AbortSignal | undefined,
): Promise<Deno.Conn> {
  if (!signal) return await connecting;
  return await new Promise<Deno.Conn>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      connecting.then((conn) => conn.close(), () => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    connecting.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function indexOf(haystack: Uint8Array, needle: readonly number[], from: number): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
