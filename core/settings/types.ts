// The resolved, frozen settings value every part of the program reads.
// Field names are the TOML keys of spec 2.2 so errors and `agent config` can name them directly.

import type { McpServerConfig } from "./mcp_server_config.ts";
import type { Source } from "./source.ts";

export type WireKind = "chat_completions" | "messages";
export type ThinkingType = "enabled" | "disabled" | "adaptive";
export type AuthStyle = "bearer" | "x-api-key";

export type { Source, SourceKind } from "./source.ts";

/** A model endpoint choice: a built-in first-party preset or a custom [[providers]] row. */
export interface ProviderPreset {
  id: string;
  label: string;
  provider: WireKind;
  base_url: string;
  model: string;
  auth_style: AuthStyle;
  /** Built-in presets are first-party endpoints (they get the richer effort vocabulary). */
  builtin: boolean;
}

export interface Settings {
  provider: WireKind;
  model: string;
  base_url?: string;
  provider_preset?: string;
  provider_keys: Readonly<Record<string, string>>;
  api_key?: string;
  model_favorites: readonly string[];
  context_window?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  enable_thinking?: boolean;
  max_tokens?: number;
  thinking_type: ThinkingType;
  request_priority?: number;
  strict_tools: boolean;
  pricing_enabled: boolean;
  token_budget?: number;
  compaction_threshold?: number;
  memory_enabled: boolean;
  memory_reflect: boolean;
  memory_dir: string;
  /** How the model's commands are confined (core/sandbox, docs/sandbox.md). */
  sandbox: "auto" | "bubblewrap" | "off";
  sandbox_network: "off" | "on";
  /** Extra environment variable names passed into the sandbox. */
  sandbox_env: readonly string[];
  /** MCP servers of both files (a project table replaces a global one of the same name). */
  mcp_servers: readonly McpServerConfig[];
  /** Keys for Streamable HTTP MCP servers (global file only; secrets). */
  mcp_keys: Readonly<Record<string, string>>;
  /** Approved project servers: project settings file → "name@fingerprint" entries. */
  mcp_approvals: Readonly<Record<string, readonly string[]>>;
  /**
   * The endpoint the global settings file itself names (its base_url, else its
   * provider_preset's); absent when it names none. The top-level api_key is bound to it
   * (key_binding.ts).
   */
  api_key_endpoint?: string;
  /** Trusted project settings files: file → "sha256:<hex>" of its content (project_trust.ts). */
  project_trust: Readonly<Record<string, string>>;
  /** What the project file decides about where the prompt goes, when it decides anything. */
  project_routing?: ProjectRouting;
  /** Custom [[providers]] rows merged with the built-in presets. */
  providers: readonly ProviderPreset[];
  /** Source of every key above, keyed by the setting key ("thinking.type", "compaction.threshold"). */
  sources: Readonly<Record<string, Source>>;
  /** Warnings collected while resolving (unknown keys, project-file global-only keys). */
  warnings: readonly string[];
  /** The settings files consulted (global always named, even when it does not exist yet). */
  files?: { global: string; project?: string };
}

/** What a wire needs to reach its endpoint; keys.ts builds it, credentials resolved. */
export interface Endpoint {
  provider: WireKind;
  /** As configured; each wire derives its own path from it (spec 4.3). */
  base_url: string;
  api_key?: string;
  auth_style: AuthStyle;
  /** First-party preset id when the endpoint came from one. */
  preset?: string;
  /** Where the key was looked for, named in 401/403 errors ("provider_keys[x], AGENT_API_KEY, …"). */
  key_hint?: string;
}

/** What a project file routes, as resolved (only keys whose value came from that file). */
export interface ProjectRouting {
  file: string;
  /** Each routing key the project file decided, with its value. */
  values: Readonly<Record<string, string>>;
  /** The file's text as it was parsed: the digest is of exactly what the run would use. */
  text: string;
}
