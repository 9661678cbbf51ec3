// URL derivation per wire (spec 4.3) and the wire-selection rule (4.3 rule 1).

import type { WireKind } from "../settings/types.ts";

function stripSlashes(base: string): string {
  return base.trim().replace(/\/+$/, "");
}

/** base_url without trailing slashes and without one trailing /v1. */
export function baseWithoutV1(base: string): string {
  return stripSlashes(base).replace(/\/v1$/, "");
}

/** Chat Completions: {model_base}/chat/completions, the base used as-is. */
export function chatCompletionsUrl(base: string): string {
  return `${stripSlashes(base)}/chat/completions`;
}

/** Messages: {model_base_without_v1}/v1/messages (a trailing /v1 is trimmed). */
export function messagesUrl(base: string): string {
  return `${baseWithoutV1(base)}/v1/messages`;
}

/** Messages token counting: {model_base_without_v1}/v1/messages/count_tokens. */
export function countTokensUrl(base: string): string {
  return `${messagesUrl(base)}/count_tokens`;
}

/** vLLM's tokenizer (Chat Completions wire): {model_base_without_v1}/tokenize, not under /v1. */
export function tokenizeUrl(base: string): string {
  return `${baseWithoutV1(base)}/tokenize`;
}

/** The startup probe, GET /v1/models on the same server, for either wire. */
export function modelsUrl(base: string): string {
  return `${baseWithoutV1(base)}/v1/models`;
}

/**
 * Rule 4.3.1: a provider set by any means (flag, env, settings file) wins; otherwise a set
 * base_url selects the Messages wire; otherwise Chat Completions.
 */
export function selectProvider(opts: { provider?: WireKind; base_url?: string }): WireKind {
  if (opts.provider !== undefined) return opts.provider;
  if (opts.base_url !== undefined && opts.base_url.trim() !== "") return "messages";
  return "chat_completions";
}
