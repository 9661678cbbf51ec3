// The effort table of spec 4.2: which levels a backend offers and how a level lands in the
// request body. Pure functions; the wires apply WireRequest.effort through effortPatch().
//
// Backend classification (decided here):
// - Messages wire: one vocabulary for every endpoint.
// - Chat Completions wire:
//   - first_party: the endpoint came from a built-in preset (Endpoint.preset is set);
//   - mainstream: a well-known hosted API by host name (MAINSTREAM_HOSTS below);
//   - self_hosted: anything else (localhost, private addresses, custom hosts), i.e. vLLM
//     and friends, where thinking is a chat-template switch.

import type { WireKind } from "../settings/types.ts";
import type { Endpoint } from "./types.ts";

export type EndpointTier = "first_party" | "mainstream" | "self_hosted";

export interface EffortBackend {
  wire: WireKind;
  tier: EndpointTier;
}

export type EffortKnob =
  | "output_config.effort"
  | "reasoning_effort"
  | "chat_template_kwargs.enable_thinking";

export interface EffortVocabulary {
  levels: readonly string[];
  knob: EffortKnob;
}

/** Hosted Chat Completions APIs that take a top-level reasoning_effort of low/medium/high. */
export const MAINSTREAM_HOSTS: readonly string[] = [
  "api.openai.com",
  "openrouter.ai",
  "api.groq.com",
  "api.x.ai",
  "api.together.xyz",
  "api.fireworks.ai",
  "generativelanguage.googleapis.com",
];
const MAINSTREAM_SUFFIXES = [".openai.azure.com"];

const MESSAGES_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;
const MAINSTREAM_LEVELS = ["low", "medium", "high"] as const;
const FIRST_PARTY_LEVELS = [
  "auto",
  "max",
  "xhigh",
  "high",
  "medium",
  "low",
  "minimal",
  "none",
] as const;
const SELF_HOSTED_LEVELS = ["auto", "on", "off"] as const;

export class InvalidEffortError extends Error {
  override name = "InvalidEffortError";
  readonly level: string;
  readonly valid: readonly string[];
  readonly backend: EffortBackend;

  constructor(level: string, backend: EffortBackend, valid: readonly string[]) {
    super(
      `Effort "${level}" is not valid for ${describeBackend(backend)}; ` +
        `valid levels: ${valid.join(", ")}.`,
    );
    this.level = level;
    this.valid = valid;
    this.backend = backend;
  }
}

export function describeBackend(b: EffortBackend): string {
  if (b.wire === "messages") return "the Messages wire";
  const where = b.tier === "first_party"
    ? "a first-party preset endpoint"
    : b.tier === "mainstream"
    ? "a mainstream hosted endpoint"
    : "a self-hosted server";
  return `the Chat Completions wire to ${where}`;
}

/** Classifies an endpoint by preset and host (see the header comment). */
export function endpointTier(endpoint: Pick<Endpoint, "base_url" | "preset">): EndpointTier {
  if (endpoint.preset !== undefined && endpoint.preset !== "") return "first_party";
  let host: string;
  try {
    host = new URL(endpoint.base_url).hostname.toLowerCase();
  } catch {
    return "self_hosted";
  }
  if (MAINSTREAM_HOSTS.includes(host)) return "mainstream";
  if (MAINSTREAM_SUFFIXES.some((s) => host.endsWith(s))) return "mainstream";
  return "self_hosted";
}

export function effortBackend(endpoint: Endpoint): EffortBackend {
  return { wire: endpoint.provider, tier: endpointTier(endpoint) };
}

/** The levels a backend offers (the /effort picker lists these) and the knob they set. */
export function effortVocabulary(b: EffortBackend): EffortVocabulary {
  if (b.wire === "messages") return { levels: MESSAGES_LEVELS, knob: "output_config.effort" };
  switch (b.tier) {
    case "mainstream":
      return { levels: MAINSTREAM_LEVELS, knob: "reasoning_effort" };
    case "first_party":
      return { levels: FIRST_PARTY_LEVELS, knob: "reasoning_effort" };
    case "self_hosted":
      return { levels: SELF_HOSTED_LEVELS, knob: "chat_template_kwargs.enable_thinking" };
  }
}

/** Throws InvalidEffortError when `level` is not in the backend's vocabulary. */
export function checkEffort(b: EffortBackend, level: string): void {
  const { levels } = effortVocabulary(b);
  if (!levels.includes(level)) throw new InvalidEffortError(level, b, levels);
}

/**
 * Body fields one level sets, to be merged into the request body (top level):
 * - Messages: { output_config: { effort } }
 * - Chat Completions, mainstream/first-party: { reasoning_effort } ("auto" sends nothing:
 *   the server decides)
 * - Chat Completions, self-hosted: { chat_template_kwargs: { enable_thinking } } for on/off;
 *   "auto" sends nothing.
 * Undefined level = server default = {}.
 */
export function effortPatch(b: EffortBackend, level: string | undefined): Record<string, unknown> {
  if (level === undefined) return {};
  checkEffort(b, level);
  if (b.wire === "messages") return { output_config: { effort: level } };
  if (level === "auto") return {};
  if (b.tier === "self_hosted") {
    return { chat_template_kwargs: { enable_thinking: level === "on" } };
  }
  return { reasoning_effort: level };
}
