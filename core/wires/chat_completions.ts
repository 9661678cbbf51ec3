// The Chat Completions wire: POST {base_url}/chat/completions with stream: true, normalized
// into WireEvents. Rendering lives in chat_completions_render.ts, assembly in
// chat_completions_stream.ts, HTTP (retries, idle timeout) in transport.ts.

import { endpointTier } from "./effort.ts";
import { ChatCompletionsAssembler } from "./chat_completions_stream.ts";
import { renderChatRequest } from "./chat_completions_render.ts";
import { chatCompletionsUrl, modelsUrl } from "./paths.ts";
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

  constructor(endpoint: Endpoint, options: WireOptions, deps: WireDeps = {}) {
    this.endpoint = endpoint;
    this.options = options;
    this.url = chatCompletionsUrl(endpoint.base_url);
    this.#deps = resolveDeps(deps);
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

  listModels(signal?: AbortSignal): Promise<ServedModel[] | null> {
    const opts: ProbeOptions = { headers: authHeaders(this.endpoint), clock: this.#deps.clock };
    if (signal) opts.signal = signal;
    return probeModels(this.#deps.fetch, modelsUrl(this.endpoint.base_url), opts);
  }
}
