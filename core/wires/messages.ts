// The Messages wire: POST {base_url without /v1}/v1/messages with stream: true, normalized
// into WireEvents. Rendering lives in messages_render.ts, assembly in messages_stream.ts,
// HTTP (retries, idle timeout) in transport.ts. countTokens() is the real token count of
// spec 4.3 rule 5: POST …/v1/messages/count_tokens with the same headers and the rendered
// body minus what that endpoint refuses (max_tokens, stream); see count_tokens.ts.

import { COUNT_TOKENS_FIELDS, pickFields, TokenCountEndpoint } from "./count_tokens.ts";
import { endpointTier } from "./effort.ts";
import { DEFAULT_MESSAGES_MAX_TOKENS, renderMessagesRequest } from "./messages_render.ts";
import { MessagesAssembler } from "./messages_stream.ts";
import { countTokensUrl, messagesUrl, modelsUrl } from "./paths.ts";
import { probeModels, type ProbeOptions } from "./probe.ts";
import { pump } from "./pump.ts";
import {
  authHeaders,
  postStream,
  type ResolvedDeps,
  resolveDeps,
  type WireDeps,
} from "./transport.ts";
import type { Endpoint, ServedModel, Wire, WireEvent, WireOptions, WireRequest } from "./types.ts";

export const ANTHROPIC_VERSION = "2023-06-01";

export class MessagesWire implements Wire {
  readonly kind = "messages" as const;
  readonly endpoint: Endpoint;
  readonly options: WireOptions;
  readonly url: string;
  #deps: ResolvedDeps;
  #counter: TokenCountEndpoint;

  constructor(endpoint: Endpoint, options: WireOptions, deps: WireDeps = {}) {
    this.endpoint = endpoint;
    this.options = options;
    this.url = messagesUrl(endpoint.base_url);
    this.#deps = resolveDeps(deps);
    this.#counter = new TokenCountEndpoint(
      this.#deps.fetch,
      countTokensUrl(endpoint.base_url),
      "input_tokens",
    );
  }

  get defaultMaxTokens(): number {
    return this.options.max_tokens ?? DEFAULT_MESSAGES_MAX_TOKENS;
  }

  /** The request body this wire would send. */
  render(req: WireRequest): Record<string, unknown> {
    const backend = { wire: this.kind, tier: endpointTier(this.endpoint) };
    return renderMessagesRequest(req, this.options, backend);
  }

  #headers(): Record<string, string> {
    return { "anthropic-version": ANTHROPIC_VERSION, ...authHeaders(this.endpoint) };
  }

  async *stream(req: WireRequest): AsyncGenerator<WireEvent> {
    const body = this.render(req);
    const assembler = new MessagesAssembler(this.url);
    const chunks = postStream(this.#deps, {
      wire: this.kind,
      endpoint: this.endpoint,
      url: this.url,
      headers: this.#headers(),
      body,
      signal: req.signal,
    });
    yield* pump(chunks, assembler);
  }

  /** The count_tokens body for `req`: the real render, reduced to the documented fields. */
  renderCount(req: WireRequest): Record<string, unknown> {
    return pickFields(this.render(req), COUNT_TOKENS_FIELDS);
  }

  async countTokens(req: WireRequest, signal?: AbortSignal): Promise<number | null> {
    return await this.#counter.count({
      headers: this.#headers(),
      body: this.renderCount(req),
      signal: signal ?? req.signal,
    });
  }

  get countProblem(): string | undefined {
    return this.#counter.problem;
  }

  listModels(signal?: AbortSignal): Promise<ServedModel[] | null> {
    const opts: ProbeOptions = { headers: this.#headers(), clock: this.#deps.clock };
    if (signal) opts.signal = signal;
    return probeModels(this.#deps.fetch, modelsUrl(this.endpoint.base_url), opts);
  }
}
