// The Chat Completions wire: POST {base_url}/chat/completions with stream: true, normalized
// into WireEvents. Rendering lives in chat_completions_render.ts, assembly in
// chat_completions_stream.ts, HTTP (retries, idle timeout) in transport.ts. countTokens() uses
// vLLM's POST {base without /v1}/tokenize with the rendered messages, tools and template
// switches; hosted servers have no such endpoint, so their 404 is remembered and the count
// is null from then on (see count_tokens.ts).

import { pickFields, TokenCountEndpoint, TOKENIZE_FIELDS } from "./count_tokens.ts";
import { endpointTier } from "./effort.ts";
import { ChatCompletionsAssembler } from "./chat_completions_stream.ts";
import { renderChatRequest } from "./chat_completions_render.ts";
import { chatCompletionsUrl, modelsUrl, tokenizeUrl } from "./paths.ts";
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

export class ChatCompletionsWire implements Wire {
  readonly kind = "chat_completions" as const;
  readonly endpoint: Endpoint;
  readonly options: WireOptions;
  readonly url: string;
  #deps: ResolvedDeps;
  #counter: TokenCountEndpoint;

  constructor(endpoint: Endpoint, options: WireOptions, deps: WireDeps = {}) {
    this.endpoint = endpoint;
    this.options = options;
    this.url = chatCompletionsUrl(endpoint.base_url);
    this.#deps = resolveDeps(deps);
    this.#counter = new TokenCountEndpoint(
      this.#deps.fetch,
      tokenizeUrl(endpoint.base_url),
      "count",
    );
  }

  get defaultMaxTokens(): number | undefined {
    return this.options.max_tokens;
  }

  /** The request body this wire would send (also used by tests and `--dry-run` views). */
  render(req: WireRequest): ReturnType<typeof renderChatRequest> {
    const backend = { wire: this.kind, tier: endpointTier(this.endpoint) };
    return renderChatRequest(req, this.options, backend, this.endpoint.base_url);
  }

  async *stream(req: WireRequest): AsyncGenerator<WireEvent> {
    const { body, strictOriginals } = this.render(req);
    const assembler = new ChatCompletionsAssembler(this.url, strictOriginals);
    const chunks = postStream(this.#deps, {
      wire: this.kind,
      endpoint: this.endpoint,
      url: this.url,
      headers: authHeaders(this.endpoint),
      body,
      signal: req.signal,
    });
    yield* pump(chunks, assembler);
  }

  /**
   * The /tokenize body for `req`: the real render's model, messages, tools and
   * chat_template_kwargs (enable_thinking changes the template's output), plus
   * add_generation_prompt: true as in a real completion.
   */
  renderCount(req: WireRequest): Record<string, unknown> {
    const body = { ...this.render(req).body, add_generation_prompt: true };
    return pickFields(body, TOKENIZE_FIELDS);
  }

  async countTokens(req: WireRequest, signal?: AbortSignal): Promise<number | null> {
    return await this.#counter.count({
      headers: authHeaders(this.endpoint),
      body: this.renderCount(req),
      signal: signal ?? req.signal,
    });
  }

  get countProblem(): string | undefined {
    return this.#counter.problem;
  }

  listModels(signal?: AbortSignal): Promise<ServedModel[] | null> {
    const opts: ProbeOptions = { headers: authHeaders(this.endpoint), clock: this.#deps.clock };
    if (signal) opts.signal = signal;
    return probeModels(this.#deps.fetch, modelsUrl(this.endpoint.base_url), opts);
  }
}
