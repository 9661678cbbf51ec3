// The settings table of spec 2.2 as data: one row per setting key, naming its TOML key,
// env var, type, default, scope and command-line flag. The resolver, `agent config`, the
// CLI parser and the docs all read this one table so they cannot drift apart.

import type { Settings, WireKind } from "./types.ts";

export type KnobType =
  | "string"
  | "url"
  | "integer"
  | "number"
  | "boolean"
  | "enum"
  | "path"
  | "list"
  | "table"
  /** An array of tables (`[[providers]]`). */
  | "rows";

export interface Range {
  min?: number;
  /** true: value must be strictly greater than min. */
  minExclusive?: boolean;
  max?: number;
  maxExclusive?: boolean;
}

export interface Knob {
  /** Setting key as in spec 2.2; dotted keys are TOML tables (`[thinking] type = …`). */
  key: string;
  /** The Settings field holding the resolved value. */
  field: keyof Settings;
  env?: string;
  type: KnobType;
  /** Allowed values for enum knobs. */
  values?: readonly string[];
  range?: Range;
  /** Static default; absent when the knob is unset by default or computed (see defaultText). */
  default?: string | number | boolean | readonly string[] | Readonly<Record<string, string>>;
  /** Human description of the default, for docs and `agent config`. */
  defaultText: string;
  /** Ignored (with a warning) in a project settings file. */
  globalOnly: boolean;
  /**
   * Command-line flag name without dashes; absent = not settable from the command line.
   * Boolean knobs with a flag also get `--no-<flag>`.
   */
  flag?: string;
  help: string;
}

export const WIRE_KINDS: readonly WireKind[] = ["chat_completions", "messages"];

/** Built-in default model ids, used when no base_url is set (the provider's public endpoint). */
export const DEFAULT_MODELS: Readonly<Record<WireKind, string>> = {
  chat_completions: "gpt-4.1",
  messages: "claude-sonnet-4-5",
};

/** Sent verbatim; the server answers with its live served model (spec 4.3 rule 2). */
export const MODEL_SENTINEL = "default";

/** Public endpoints used when base_url is unset. */
export const PUBLIC_BASE_URLS: Readonly<Record<WireKind, string>> = {
  chat_completions: "https://api.openai.com/v1",
  messages: "https://api.anthropic.com",
};

/**
 * What the agent loop assumes while context_window is unset and before the server's
 * max_model_len refines it. Conservative on purpose: overshooting truncates requests.
 */
export const CONSERVATIVE_CONTEXT_WINDOW = 32_768;

/**
 * The Messages API's smallest thinking budget. Settings validation refuses thinking with a
 * max_tokens at or below it, and the Messages wire derives its budget from it.
 */
export const MIN_THINKING_BUDGET = 1024;

export const KNOBS: readonly Knob[] = [
  {
    key: "provider",
    field: "provider",
    env: "AGENT_PROVIDER",
    type: "enum",
    values: WIRE_KINDS,
    defaultText: "chat_completions; messages when base_url is set and provider is not",
    globalOnly: false,
    flag: "provider",
    help: "Wire to speak: chat_completions or messages",
  },
  {
    key: "model",
    field: "model",
    env: "AGENT_MODEL",
    type: "string",
    defaultText:
      `preset model; else "${MODEL_SENTINEL}" when base_url is set; else ${DEFAULT_MODELS.chat_completions} / ${DEFAULT_MODELS.messages} per wire`,
    globalOnly: false,
    flag: "model",
    help: `Model id ("${MODEL_SENTINEL}" = the server's served model)`,
  },
  {
    key: "base_url",
    field: "base_url",
    env: "AGENT_BASE_URL",
    type: "url",
    defaultText: "unset: the provider's public endpoint",
    globalOnly: false,
    flag: "base-url",
    help: "Model server base URL (e.g. http://127.0.0.1:8000/v1)",
  },
  {
    key: "provider_preset",
    field: "provider_preset",
    env: "AGENT_PRESET",
    type: "string",
    defaultText: "unset",
    globalOnly: false,
    flag: "preset",
    help: "Provider preset id (built-in or a custom [[providers]] row)",
  },
  {
    key: "provider_keys",
    field: "provider_keys",
    type: "table",
    default: {},
    defaultText: "empty",
    globalOnly: true,
    help: "API keys keyed by provider id (set with /providers <id>)",
  },
  {
    key: "api_key",
    field: "api_key",
    type: "string",
    defaultText: "unset",
    globalOnly: true,
    help: "Shared fallback API key",
  },
  {
    key: "model_favorites",
    field: "model_favorites",
    type: "list",
    default: [],
    defaultText: "empty",
    globalOnly: true,
    help: "Favorite model ids shown first in the /model picker",
  },
  {
    key: "context_window",
    field: "context_window",
    env: "AGENT_CONTEXT_WINDOW",
    type: "integer",
    range: { min: 1 },
    defaultText: `unset: ${CONSERVATIVE_CONTEXT_WINDOW}, refined from the server's max_model_len`,
    globalOnly: false,
    flag: "context-window",
    help: "Pin the context window size in tokens",
  },
  {
    key: "temperature",
    field: "temperature",
    env: "AGENT_TEMPERATURE",
    type: "number",
    range: { min: 0 },
    defaultText: "unset (server default)",
    globalOnly: false,
    flag: "temperature",
    help: "Sampling temperature (Chat Completions wire only)",
  },
  {
    key: "top_p",
    field: "top_p",
    env: "AGENT_TOP_P",
    type: "number",
    range: { min: 0, minExclusive: true, max: 1 },
    defaultText: "unset (server default)",
    globalOnly: false,
    flag: "top-p",
    help: "Nucleus sampling in (0, 1] (Chat Completions wire only)",
  },
  {
    key: "top_k",
    field: "top_k",
    env: "AGENT_TOP_K",
    type: "integer",
    // -1 (and 0 on newer servers) mean "no top-k limit" on vLLM.
    range: { min: -1 },
    defaultText: "unset (server default)",
    globalOnly: false,
    flag: "top-k",
    help: "Top-k sampling, sent via extra_body (-1 disables)",
  },
  {
    key: "enable_thinking",
    field: "enable_thinking",
    env: "AGENT_ENABLE_THINKING",
    type: "boolean",
    defaultText: "unset (server default)",
    globalOnly: false,
    flag: "enable-thinking",
    help: "Send enable_thinking via extra_body (false hard-disables thinking)",
  },
  {
    key: "max_tokens",
    field: "max_tokens",
    env: "AGENT_MAX_TOKENS",
    type: "integer",
    range: { min: 1 },
    defaultText: "unset (server default)",
    globalOnly: false,
    flag: "max-tokens",
    help: "Response token cap",
  },
  {
    key: "thinking.type",
    field: "thinking_type",
    type: "enum",
    values: ["enabled", "disabled", "adaptive"],
    default: "adaptive",
    defaultText: "adaptive",
    globalOnly: false,
    flag: "thinking",
    help: "Messages-wire thinking: enabled, disabled or adaptive",
  },
  {
    key: "request_priority",
    field: "request_priority",
    env: "AGENT_REQUEST_PRIORITY",
    type: "integer",
    defaultText: "absent (not 0)",
    globalOnly: false,
    flag: "request-priority",
    help: "extra_body.priority on the Chat Completions wire",
  },
  {
    key: "strict_tools",
    field: "strict_tools",
    env: "AGENT_STRICT_TOOLS",
    type: "boolean",
    default: false,
    defaultText: "false",
    globalOnly: false,
    flag: "strict-tools",
    help: "Strict tool schemas (Chat Completions wire only)",
  },
  {
    key: "pricing_enabled",
    field: "pricing_enabled",
    env: "AGENT_PRICING",
    type: "boolean",
    default: false,
    defaultText: "false",
    globalOnly: false,
    flag: "pricing",
    help: "Show running cost",
  },
  {
    key: "token_budget",
    field: "token_budget",
    env: "AGENT_TOKEN_BUDGET",
    type: "integer",
    range: { min: 1 },
    defaultText: "unlimited",
    globalOnly: false,
    flag: "token-budget",
    help: "Cap on cumulative tokens of one run",
  },
  {
    key: "compaction.threshold",
    field: "compaction_threshold",
    env: "AGENT_COMPACT_THRESHOLD",
    type: "number",
    range: { min: 0, minExclusive: true, max: 1, maxExclusive: true },
    defaultText: "unset (0.85 in scheduled children, via env)",
    globalOnly: false,
    flag: "compact-threshold",
    help: "Compact history at this fraction of the context window, in (0, 1)",
  },
  {
    key: "memory_enabled",
    field: "memory_enabled",
    type: "boolean",
    default: true,
    defaultText: "true",
    globalOnly: false,
    flag: "memory",
    help: "Register the memory tool and per-turn recall",
  },
  {
    key: "memory_reflect",
    field: "memory_reflect",
    env: "AGENT_MEMORY_REFLECT",
    type: "boolean",
    default: true,
    defaultText: "true",
    globalOnly: false,
    flag: "memory-reflect",
    help: "Run the reflection pass automatically",
  },
  {
    key: "memory_dir",
    field: "memory_dir",
    env: "AGENT_MEMORY_DIR",
    type: "path",
    defaultText: "<agent home>/memory (~/.agent/memory)",
    globalOnly: true,
    flag: "memory-dir",
    help: "Memory root directory",
  },
  {
    key: "sandbox",
    field: "sandbox",
    env: "AGENT_SANDBOX_MODE",
    type: "enum",
    values: ["auto", "bubblewrap", "off"],
    default: "auto",
    defaultText: "auto",
    // A cloned repository's settings must not be able to let the model out (settings.md).
    globalOnly: true,
    flag: "sandbox",
    help: "Confine the model's commands: auto, bubblewrap (required) or off (docs/sandbox.md)",
  },
  {
    key: "sandbox_network",
    field: "sandbox_network",
    env: "AGENT_SANDBOX_NETWORK",
    type: "enum",
    values: ["off", "on"],
    default: "off",
    defaultText: "off",
    globalOnly: true,
    flag: "sandbox-network",
    help: "Network inside the sandbox: off or on",
  },
  {
    key: "sandbox_env",
    field: "sandbox_env",
    type: "list",
    default: [],
    defaultText: "empty (PATH, LANG, LC_ALL, TERM, TZ only)",
    globalOnly: true,
    help: "More environment variable names the sandboxed commands may see",
  },
  {
    key: "providers",
    field: "providers",
    type: "rows",
    defaultText: "the built-in presets",
    globalOnly: true,
    help: "Custom [[providers]] rows: id, label, provider, base_url, model, auth_style",
  },
  {
    key: "mcp_servers",
    field: "mcp_servers",
    type: "rows",
    defaultText: "none",
    globalOnly: false,
    help:
      "MCP servers, one [mcp_servers.<name>] table each (project-file servers start only once approved)",
  },
  {
    key: "mcp_keys",
    field: "mcp_keys",
    type: "table",
    default: {},
    defaultText: "empty",
    globalOnly: true,
    help: "Keys for Streamable HTTP MCP servers, by name (set with agent mcp set-key <name>)",
  },
  {
    key: "mcp_approvals",
    field: "mcp_approvals",
    type: "rows",
    defaultText: "none",
    globalOnly: true,
    help: "Project MCP servers the user approved, by project file (agent mcp approve <name>)",
  },
  {
    key: "project_trust",
    field: "project_trust",
    type: "rows",
    defaultText: "none",
    globalOnly: true,
    help: "Project settings files trusted to choose the endpoint, by content (agent config trust)",
  },
];

export const KNOBS_BY_KEY: ReadonlyMap<string, Knob> = new Map(KNOBS.map((k) => [k.key, k]));

/** Keys that may not be set in a project file. */
export const GLOBAL_ONLY_KEYS: readonly string[] = KNOBS.filter((k) => k.globalOnly).map((k) =>
  k.key
);

export interface FlagSpec {
  /** Flag name without dashes ("base-url", "no-strict-tools"). */
  name: string;
  /** As node:util parseArgs understands it. */
  type: "string" | "boolean";
  /** The setting key this flag sets. */
  key: string;
  /** `--no-<flag>` form of a boolean knob: sets the key to false. */
  negated?: boolean;
  /** Placeholder for help output ("<number>"). */
  valueName?: string;
  help: string;
}

function valueName(k: Knob): string {
  if (k.type === "enum") return `<${(k.values ?? []).join("|")}>`;
  if (k.type === "integer" || k.type === "number") return "<number>";
  if (k.type === "url") return "<url>";
  if (k.type === "path") return "<dir>";
  return k.key === "model" ? "<model>" : "<value>";
}

/** Every settings flag, ready for a parser: boolean knobs come as `--x` and `--no-x`. */
export const SETTINGS_FLAGS: readonly FlagSpec[] = KNOBS.flatMap((k): FlagSpec[] => {
  if (k.flag === undefined) return [];
  if (k.type === "boolean") {
    return [
      { name: k.flag, type: "boolean", key: k.key, help: k.help },
      {
        name: `no-${k.flag}`,
        type: "boolean",
        key: k.key,
        negated: true,
        help: `Turn off: ${k.help}`,
      },
    ];
  }
  return [{ name: k.flag, type: "string", key: k.key, valueName: valueName(k), help: k.help }];
});

/** The `options` object for node:util parseArgs covering every settings flag. */
export function settingsParseArgsOptions(): Record<string, { type: "string" | "boolean" }> {
  const out: Record<string, { type: "string" | "boolean" }> = {};
  for (const f of SETTINGS_FLAGS) out[f.name] = { type: f.type };
  return out;
}
