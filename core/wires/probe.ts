// The startup probe (GET /v1/models) and the resolved model name shown in the banner and
// top bar. Every probe failure is silent: the session simply keeps the configured name.

import { type Clock, systemClock, type WireFetch } from "../ports.ts";
import type { ServedModel } from "./types.ts";

/** The model sentinel meaning "whatever the server serves"; sent verbatim on the wire. */
export const DEFAULT_MODEL_SENTINEL = "default";

export interface ProbeOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The probe gives up after this long (it runs at startup; it must not block it). */
  timeoutMs?: number;
  clock?: Clock;
}

/**
 * GET {url}: the served models, or null on a transport error, a non-2xx answer, a body that
 * is not a model listing, or an empty listing.
 */
export async function probeModels(
  fetchFn: WireFetch,
  url: string,
  opts: ProbeOptions = {},
): Promise<ServedModel[] | null> {
  const timeout = new AbortController();
  const stopTimer = new AbortController();
  (opts.clock ?? systemClock).sleep(opts.timeoutMs ?? 5_000, stopTimer.signal)
    .then(() => timeout.abort(), () => {/* stopped */});
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
  try {
    const res = await fetchFn(url, { headers: opts.headers ?? {}, signal });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    return parseModelListing(await res.json());
  } catch {
    return null;
  } finally {
    stopTimer.abort();
  }
}

/**
 * Reads an OpenAI/vLLM or Messages-style listing: { data: [{ id, max_model_len? }] }. The
 * window is vLLM's max_model_len, or else llama-server's meta.n_ctx (the context the server
 * was started with; meta.n_ctx_train is only the model's upper bound and is not used).
 */
export function parseModelListing(body: unknown): ServedModel[] | null {
  if (!body || typeof body !== "object") return null;
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) return null;
  const models: ServedModel[] = [];
  for (const entry of data) {
    if (!entry || typeof entry !== "object") continue;
    const { id, max_model_len, meta } = entry as {
      id?: unknown;
      max_model_len?: unknown;
      meta?: { n_ctx?: unknown } | null;
    };
    if (typeof id !== "string" || id === "") continue;
    const model: ServedModel = { id };
    const window = positiveInteger(max_model_len) ??
      (meta && typeof meta === "object" ? positiveInteger(meta.n_ctx) : undefined);
    if (window !== undefined) model.max_model_len = window;
    models.push(model);
  }
  return models.length > 0 ? models : null;
}

function positiveInteger(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
}

export interface ResolverOptions {
  /** The configured model (possibly the `default` sentinel). */
  model: string;
  /** Whether base_url is set; without it the banner shows the literal `default`. */
  hasBaseUrl: boolean;
  /** Conservative window used until the server tells us better. */
  fallbackContextWindow: number;
  /** The context_window setting; when set it is never refined. */
  pinnedContextWindow?: number;
}

/**
 * The display name and context window of the active model. Names resolved for the
 * `default` sentinel are cached per session, keyed by base_url state and sentinel, so a
 * /model swap back to `default` shows the known name at once. Update methods return true
 * only when something visible changed (callers repaint then, and only then).
 */
export class ModelNameResolver {
  #model: string;
  #hasBaseUrl: boolean;
  #resolved = new Map<string, string>();
  #window: number;
  #fallback: number;
  #pinned: number | undefined;
  #listing: ServedModel[] | null = null;

  constructor(opts: ResolverOptions) {
    this.#model = opts.model;
    this.#hasBaseUrl = opts.hasBaseUrl;
    this.#fallback = opts.fallbackContextWindow;
    this.#pinned = opts.pinnedContextWindow;
    this.#window = opts.pinnedContextWindow ?? opts.fallbackContextWindow;
  }

  /** The configured model, sent on the wire verbatim. */
  get model(): string {
    return this.#model;
  }

  /** What the banner and top bar show. */
  get displayName(): string {
    if (this.#model !== DEFAULT_MODEL_SENTINEL || !this.#hasBaseUrl) return this.#model;
    return this.#resolved.get(this.#model) ?? this.#model;
  }

  get contextWindow(): number {
    return this.#window;
  }

  /** Applies the startup probe's result (null = silent no-op). */
  applyListing(models: ServedModel[] | null): boolean {
    if (!models || models.length === 0) return false;
    this.#listing = models;
    const before = this.#snapshot();
    const first = models[0];
    if (first && this.#isSentinel() && !this.#resolved.has(this.#model)) {
      this.#resolved.set(this.#model, first.id);
    }
    this.#refineWindow();
    return before !== this.#snapshot();
  }

  /**
   * Applies `done.model` after a completed turn. A server echoing the sentinel back has not
   * named the model that answered, so the probed name (or the sentinel) stays.
   */
  applyResponseModel(model: string | undefined): boolean {
    if (!model || model === DEFAULT_MODEL_SENTINEL || !this.#isSentinel()) return false;
    const before = this.#snapshot();
    this.#resolved.set(this.#model, model);
    this.#refineWindow();
    return before !== this.#snapshot();
  }

  /** A /model swap: the cache survives, the listing (of the old endpoint) may not. */
  setModel(model: string, opts: { hasBaseUrl: boolean; keepListing?: boolean }): void {
    this.#model = model;
    this.#hasBaseUrl = opts.hasBaseUrl;
    if (!opts.keepListing) this.#listing = null;
    this.#window = this.#pinned ?? this.#fallback;
    this.#refineWindow();
  }

  #isSentinel(): boolean {
    return this.#model === DEFAULT_MODEL_SENTINEL && this.#hasBaseUrl;
  }

  #refineWindow(): void {
    if (this.#pinned !== undefined || !this.#listing) return;
    const name = this.#isSentinel() ? this.displayName : this.#model;
    const entry = this.#listing.find((m) => m.id === name) ??
      (this.#isSentinel() ? this.#listing[0] : undefined);
    if (entry?.max_model_len) this.#window = entry.max_model_len;
  }

  #snapshot(): string {
    return `${this.displayName}\u0000${this.#window}`;
  }
}
