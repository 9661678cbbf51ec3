// The one fake model server: in-process Deno.serve on 127.0.0.1, port 0, speaking both wires
// at their real paths and vLLM's extras. Streams follow the documented formats.
//
//   import { httpError, reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
//
//   const fake = await startFakeModelServer({
//     models: [{ id: "qwen3-8b", max_model_len: 32768 }], // GET /v1/models (default: fake-model)
//                                // ({ id, n_ctx: 12288 } lists it as llama-server does: meta.n_ctx)
//     priorityScheduling: false, // a non-zero `priority` then gets vLLM's 400
//     apiKey: "sk-test",         // optional: when set, requests without it get 401
//     responseModel: "qwen3-8b", // response.model (default: the first served model id)
//     chunkBytes: 7,             // optional: split every frame into 7-byte writes
//     countTokens: false,        // POST /v1/messages/count_tokens answers 404 (default: served)
//     tokenize: false,           // POST /tokenize answers 404, like a hosted server
//     dialect: "llama-server",   // chunks and /tokenize as llama-server writes them
//     promptCache: true,         // usage from a prompt cache run by the providers' documented
//                                // rules (prompt_cache.ts) when a reply scripts none
//   });
//   fake.url                     // "http://127.0.0.1:PORT/v1" — use as base_url for either wire
//   fake.enqueue(reply().reasoning("thinking…").text("Hello").usage(10, 5));
//   fake.enqueue(reply().tool("view", { path: "a.txt" }));  // args streamed in 3 fragments
//   fake.enqueue((req) => reply().text(`echo ${req.path}`)); // computed from the request
//   fake.enqueue(httpError(429, { error: { message: "slow down" } }, { "retry-after": "2" }));
//   fake.enqueue(reply().text("partial").hang());           // then nothing, until the client
//                                                           // aborts or fake.close()
//   fake.enqueue(reply().gate(opened).text("late"));        // holds until `opened` resolves
//   fake.enqueue(reply().streamError("overloaded"));        // a mid-stream error event
//   fake.enqueue(reply().text("par").reset());              // connection dropped mid-stream
//   fake.enqueue(reply().raw(sseText));                     // a recorded stream verbatim
//   await fake.waitForRequests(2);  // resolves once 2 model calls have arrived (no sleeping)
//   await fake.waitForClientsGone(1); // resolves once 1 client closed a stream before its end
//   fake.requests     // model calls only: { method, path, wire, headers, body, rejection? }
//   fake.allRequests  // every request, including /v1/models and /metrics
//   fake.violations   // invariant breaks answered with 4xx: { path, status, message }
//   fake.assertNoViolations();
//   fake.setWaiting(3)  // /metrics: vllm:num_requests_waiting 3
//   fake.setModels([...]) / fake.failModels(503)
//   fake.countRequests  // POST /v1/messages/count_tokens and /tokenize calls (also in
//                       // allRequests, never in requests); counts follow the rule in
//                       // model_server_count.ts (fakeCountTokens / fakeTokenizeCount)
//   fake.enqueueCount(httpError(500))            // the next counting call answers this
//   fake.enqueueCount(httpError(200, { n: 1 }))  // a 200 without a count (malformed)
//   await fake.close();  // ends hung streams, then shuts down
//
// Replies are consumed in FIFO order by POST /v1/chat/completions and POST /v1/messages and
// rendered into whichever wire the request came in on. With no reply scripted the answer is a
// 500 that says so, with `x-should-retry: false` so the wires do not retry it. A request that
// breaks an invariant is answered 4xx with an explanation and does not consume a reply.
// Scripted 429/5xx answers are retried by the wires with backoff, so give the wire a
// FakeClock and advance it, or no retries:
//   createWire(fakeEndpoint(fake, "messages"), defaultWireOptions(), undefined,
//     { clock: fakeClock, retry: { maxRetries: 0 } })
// (fakeEndpoint/defaultWireOptions are in model_server_wiring.ts). `reset()` makes Deno log
// one "scripted connection reset" line; that is expected. The fake is safe to use from child
// processes: they only need the URL (e.g. AGENT_BASE_URL=fake.url).

import {
  type ChatDialect,
  chatErrorBody,
  checkChatRequest,
  type Rejection,
  renderChat,
  type StreamAction,
} from "./model_server_chat.ts";
import {
  checkMessagesRequest,
  messagesErrorBody,
  renderMessages,
} from "./model_server_messages.ts";
import {
  checkCountTokensRequest,
  checkTokenizeRequest,
  countTokensAnswer,
  tokenizeAnswer,
} from "./model_server_count.ts";
import type { HttpErrorReply, ReplyBuilder } from "./model_server_reply.ts";
import { type FakeModel, metricsText, modelEntry } from "./model_server_listing.ts";
import { type OpenStream, sseResponse } from "./model_server_stream.ts";
import { FakePromptCaches } from "./prompt_cache.ts";

export {
  fakeSignature,
  httpError,
  type HttpErrorReply,
  reply,
  ReplyBuilder,
} from "./model_server_reply.ts";
export { fakeCountTokens, fakeTokenizeCount, fakeTokens } from "./model_server_count.ts";
export type { FakeModel } from "./model_server_listing.ts";

export interface FakeServerOptions {
  models?: FakeModel[];
  priorityScheduling?: boolean;
  apiKey?: string;
  responseModel?: string;
  chunkBytes?: number;
  /** Serve POST /v1/messages/count_tokens (default true; false answers 404). */
  countTokens?: boolean;
  /** Serve vLLM's POST /tokenize (default true; false answers 404 like a hosted server). */
  tokenize?: boolean;
  /**
   * "llama-server": Chat Completions chunks in llama-server's layout (finish_reason and index
   * before delta, a ticking `created`, usage with timings), and its /tokenize, which reads only
   * `content` and so answers the chat-form body with {"tokens": []}. Default "vllm".
   */
  dialect?: ChatDialect;
  /**
   * Replies without scripted usage report what a provider's prompt cache would have read and
   * written for the request (prompt_cache.ts): cache_read/creation_input_tokens on Messages,
   * prompt_tokens_details.cached_tokens on Chat Completions. Default false.
   */
  promptCache?: boolean;
}

export type FakeWire =
  | "chat_completions"
  | "messages"
  | "count_tokens"
  | "tokenize"
  | "models"
  | "metrics"
  | "unknown";

export interface RecordedRequest {
  method: string;
  path: string;
  wire: FakeWire;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (null when there was none or it was not JSON). */
  body: Record<string, unknown> | null;
  /** Set when the fake refused the request. */
  rejection?: Rejection;
}

export interface Violation {
  path: string;
  status: number;
  message: string;
}

export type Scripted = ReplyBuilder | HttpErrorReply;
export type ScriptedReply = Scripted | ((req: RecordedRequest) => Scripted);

export interface FakeModelServer {
  readonly url: string;
  readonly origin: string;
  readonly requests: readonly RecordedRequest[];
  readonly allRequests: readonly RecordedRequest[];
  readonly violations: readonly Violation[];
  /** Token-counting calls (count_tokens and /tokenize), refused ones included. */
  readonly countRequests: readonly RecordedRequest[];
  /** Scripted replies not yet consumed. */
  readonly pending: number;
  enqueue(...replies: ScriptedReply[]): void;
  /** Answers for the next counting calls, FIFO, before the computed count. */
  enqueueCount(...answers: HttpErrorReply[]): void;
  setWaiting(n: number): void;
  setRunning(n: number | undefined): void;
  setModels(models: FakeModel[]): void;
  failModels(status: number): void;
  waitForRequests(count: number): Promise<void>;
  /**
   * Resolves once `count` streams were cancelled by their client going away (the connection
   * closed before the stream's end) — what a client that releases its connection causes.
   */
  waitForClientsGone(count: number): Promise<void>;
  assertNoViolations(): void;
  close(): Promise<void>;
}

export async function startFakeModelServer(
  options: FakeServerOptions = {},
): Promise<FakeModelServer> {
  const state = {
    models: options.models ?? [{ id: "fake-model", max_model_len: 32768 }],
    modelsStatus: 200,
    waiting: 0,
    running: undefined as number | undefined,
    queue: [] as ScriptedReply[],
    countQueue: [] as HttpErrorReply[],
    requests: [] as RecordedRequest[],
    all: [] as RecordedRequest[],
    violations: [] as Violation[],
    streams: new Set<OpenStream>(),
    waiters: [] as { count: number; resolve: () => void }[],
    clientsGone: 0,
    goneWaiters: [] as { count: number; resolve: () => void }[],
    closing: false,
  };
  const caches = options.promptCache ? new FakePromptCaches() : undefined;
  const responseModel = () => options.responseModel ?? state.models[0]?.id ?? "fake-model";

  const notify = () => {
    state.waiters = state.waiters.filter((w) => {
      if (state.requests.length < w.count) return true;
      w.resolve();
      return false;
    });
  };

  const reject = (rec: RecordedRequest, r: Rejection, wire: "chat_completions" | "messages") => {
    rec.rejection = r;
    state.violations.push({ path: rec.path, status: r.status, message: r.message });
    const body = wire === "messages"
      ? messagesErrorBody(r.status, r.message)
      : chatErrorBody(r.status, r.message);
    return Response.json(body, { status: r.status });
  };

  const stream = (actions: StreamAction[]): Response =>
    sseResponse(actions, {
      chunkBytes: options.chunkBytes,
      streams: state.streams,
      closing: () => state.closing,
      clientGone: () => {
        state.clientsGone++;
        state.goneWaiters = state.goneWaiters.filter((w) => {
          if (state.clientsGone < w.count) return true;
          w.resolve();
          return false;
        });
      },
    });

  const authorized = (req: Request, wire: FakeWire): boolean => {
    if (!options.apiKey) return true;
    const bearer = req.headers.get("authorization") === `Bearer ${options.apiKey}`;
    if (wire === "chat_completions" || wire === "tokenize") return bearer;
    return bearer || req.headers.get("x-api-key") === options.apiKey;
  };

  const scriptedAnswer = (scripted: HttpErrorReply): Response => {
    const isText = typeof scripted.body === "string";
    return new Response(isText ? String(scripted.body) : JSON.stringify(scripted.body), {
      status: scripted.status,
      headers: { "content-type": isText ? "text/plain" : "application/json", ...scripted.headers },
    });
  };

  const handleCount = async (
    req: Request,
    rec: RecordedRequest,
    kind: "count_tokens" | "tokenize",
  ): Promise<Response> => {
    const style = kind === "count_tokens" ? "messages" : "chat_completions";
    const text = await req.text();
    try {
      rec.body = text ? JSON.parse(text) : null;
    } catch {
      rec.body = null;
    }
    const served = kind === "count_tokens" ? options.countTokens : options.tokenize;
    if (served === false) {
      // A server without the route: a plain 404, not a violation.
      return Response.json(chatErrorBody(404, `Not Found: POST ${rec.path}`), { status: 404 });
    }
    if (text && rec.body === null) {
      return reject(rec, { status: 400, message: "the body is not valid JSON" }, style);
    }
    if (!authorized(req, kind)) {
      const message = kind === "count_tokens" ? "invalid x-api-key" : "Incorrect API key provided";
      return reject(rec, { status: 401, message }, style);
    }
    const problem = kind === "count_tokens"
      ? checkCountTokensRequest(rec.body, req.headers)
      : checkTokenizeRequest(rec.body);
    if (problem) return reject(rec, problem, style);
    const scripted = state.countQueue.shift();
    if (scripted) return scriptedAnswer(scripted);
    const body = rec.body ?? {};
    return Response.json(
      kind === "count_tokens"
        ? countTokensAnswer(body)
        : options.dialect === "llama-server"
        ? { tokens: [] }
        : tokenizeAnswer(body, state.models[0]?.max_model_len ?? 32768),
    );
  };

  const handleModelCall = async (
    req: Request,
    rec: RecordedRequest,
    wire: "chat_completions" | "messages",
  ): Promise<Response> => {
    state.requests.push(rec);
    try {
      const text = await req.text();
      try {
        rec.body = text ? JSON.parse(text) : null;
      } catch {
        return reject(rec, { status: 400, message: "the body is not valid JSON" }, wire);
      }
      if (!authorized(req, wire)) {
        const message = wire === "messages" ? "invalid x-api-key" : "Incorrect API key provided";
        return reject(rec, { status: 401, message }, wire);
      }
      const problem = wire === "messages"
        ? checkMessagesRequest(rec.body, req.headers)
        : checkChatRequest(rec.body, { priorityScheduling: options.priorityScheduling ?? false });
      if (problem) return reject(rec, problem, wire);
      const next = state.queue.shift();
      if (!next) {
        const message = `fake model server: no reply was scripted for POST ${rec.path} ` +
          `(model call #${state.requests.length}); enqueue one with fake.enqueue(reply()…)`;
        const body = wire === "messages"
          ? messagesErrorBody(500, message)
          : chatErrorBody(500, message);
        return Response.json(body, { status: 500, headers: { "x-should-retry": "false" } });
      }
      const scripted = typeof next === "function" ? next(rec) : next;
      if (scripted.kind === "http_error") return scriptedAnswer(scripted);
      const model = scripted.modelValue ?? responseModel();
      const body = rec.body ?? {};
      caches?.account(scripted, wire, body);
      return stream(
        wire === "messages"
          ? renderMessages(scripted, body, model)
          : renderChat(scripted, body, model, options.dialect),
      );
    } finally {
      notify();
    }
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname;
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const rec: RecordedRequest = { method: req.method, path, wire: "unknown", headers, body: null };
    state.all.push(rec);
    try {
      if (path === "/metrics" && req.method === "GET") {
        rec.wire = "metrics";
        return new Response(
          metricsText(responseModel(), state.waiting, state.running ?? state.streams.size),
          {
            headers: { "content-type": "text/plain; version=0.0.4" },
          },
        );
      }
      if (path === "/v1/models" && req.method === "GET") {
        rec.wire = "models";
        if (!authorized(req, "models")) {
          return Response.json(chatErrorBody(401, "Incorrect API key provided"), { status: 401 });
        }
        if (state.modelsStatus !== 200) {
          return Response.json(chatErrorBody(state.modelsStatus, "models listing failed"), {
            status: state.modelsStatus,
          });
        }
        return Response.json({ object: "list", data: state.models.map(modelEntry) });
      }
      if (path.endsWith("/v1/v1/messages")) {
        rec.wire = "messages";
        state.requests.push(rec);
        notify();
        return reject(rec, {
          status: 404,
          message: `Not Found: ${path}. The base_url still ends in /v1 and was not trimmed.`,
        }, "messages");
      }
      if (path === "/v1/messages/count_tokens" && req.method === "POST") {
        rec.wire = "count_tokens";
        return await handleCount(req, rec, "count_tokens");
      }
      if (path === "/tokenize" && req.method === "POST") {
        rec.wire = "tokenize";
        return await handleCount(req, rec, "tokenize");
      }
      if (path === "/v1/chat/completions" && req.method === "POST") {
        rec.wire = "chat_completions";
        return await handleModelCall(req, rec, "chat_completions");
      }
      if (path === "/v1/messages" && req.method === "POST") {
        rec.wire = "messages";
        return await handleModelCall(req, rec, "messages");
      }
      return Response.json(chatErrorBody(404, `Not Found: ${req.method} ${path}`), { status: 404 });
    } catch (e) {
      const message = `fake model server failed: ${e instanceof Error ? e.message : String(e)}`;
      return Response.json(chatErrorBody(500, message), {
        status: 500,
        headers: { "x-should-retry": "false" },
      });
    }
  };

  let listening = () => {};
  const listened = new Promise<void>((resolve) => (listening = resolve));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => listening() },
    handler,
  );
  await listened;
  const origin = `http://127.0.0.1:${server.addr.port}`;

  return {
    url: `${origin}/v1`,
    origin,
    get requests() {
      return state.requests;
    },
    get allRequests() {
      return state.all;
    },
    get violations() {
      return state.violations;
    },
    get countRequests() {
      return state.all.filter((r) => r.wire === "count_tokens" || r.wire === "tokenize");
    },
    get pending() {
      return state.queue.length;
    },
    enqueue(...replies) {
      state.queue.push(...replies);
    },
    enqueueCount(...answers) {
      state.countQueue.push(...answers);
    },
    setWaiting(n) {
      state.waiting = n;
    },
    setRunning(n) {
      state.running = n;
    },
    setModels(models) {
      state.models = models;
      state.modelsStatus = 200;
    },
    failModels(status) {
      state.modelsStatus = status;
    },
    waitForRequests(count) {
      if (state.requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => state.waiters.push({ count, resolve }));
    },
    waitForClientsGone(count) {
      if (state.clientsGone >= count) return Promise.resolve();
      return new Promise((resolve) => state.goneWaiters.push({ count, resolve }));
    },
    assertNoViolations() {
      if (state.violations.length > 0) {
        const list = state.violations.map((v) => `${v.status} ${v.path}: ${v.message}`);
        throw new Error(`fake model server saw invalid requests:\n${list.join("\n")}`);
      }
    },
    async close() {
      state.closing = true;
      for (const s of state.streams) s.wake();
      await server.shutdown();
    },
  };
}
