// The settings resolver (design.md "How data flows" 1): flags, AGENT_* env, the project
// file, the global file and defaults become one deep-frozen Settings value that remembers
// where every value came from. Decisions are written down in settings.md.

import { dirname, join } from "../path.ts";
import type { Env } from "../ports.ts";
import { SettingsError } from "./errors.ts";
import {
  DEFAULT_MODELS,
  type Knob,
  KNOBS,
  KNOBS_BY_KEY,
  MIN_THINKING_BUDGET,
  MODEL_SENTINEL,
  PUBLIC_BASE_URLS,
} from "./knobs.ts";
import { mergeMcpServers, parseMcpApprovals, parseMcpServers } from "./mcp_servers.ts";
import { BUILTIN_PRESETS, findPreset, parseCustomProviders } from "./presets.ts";
import { parseProjectTrust, projectRouting } from "./project_trust.ts";
import { findProjectSettingsFile, globalSettingsPath } from "./project.ts";
import { type CollectedFile, collectFile, readSettingsFile } from "./toml_file.ts";
import type { ProviderPreset, Settings, Source, SourceKind, WireKind } from "./types.ts";
import { expandPath, parseTextValue, parseTomlValue } from "./values.ts";

export type Flags = Record<string, string | boolean | undefined>;

export interface ResolveInput {
  /** Parsed command-line flags keyed by flag name without dashes (see SETTINGS_FLAGS). */
  flags: Flags;
  env: Env;
  cwd: string;
  /** The agent home (AGENT_HOME or ~/.agent; see agentHome). */
  home: string;
}

interface Found {
  value: unknown;
  source: Source;
}

const RANK: Record<SourceKind, number> = {
  flag: 0,
  env: 1,
  project: 2,
  global: 3,
  preset: 4,
  default: 5,
};

function fromFlags(knob: Knob, flags: Flags, cwd: string, home?: string): Found | undefined {
  if (knob.flag === undefined) return undefined;
  const name = knob.flag;
  const pos = flags[name];
  const source: Source = { kind: "flag", detail: `--${name}` };
  if (knob.type === "boolean") {
    const neg = flags[`no-${name}`];
    const posOn = pos === true || (typeof pos === "string" && pos !== "false");
    if (neg === true && pos !== undefined && posOn) {
      throw new SettingsError(
        `Flags --${name} and --no-${name} contradict each other; pass only one.`,
        { key: knob.key, source },
      );
    }
    if (neg === true) return { value: false, source: { kind: "flag", detail: `--no-${name}` } };
    if (typeof pos === "boolean") return { value: pos, source };
    if (typeof pos === "string") return { value: parseTextValue(knob, pos, source), source };
    return undefined;
  }
  if (pos === undefined) return undefined;
  if (typeof pos === "boolean") {
    throw new SettingsError(`Flag --${name} needs a value (${knob.help}).`, {
      key: knob.key,
      source,
    });
  }
  const value = parseTextValue(knob, pos, source);
  return { value: knob.type === "path" ? expandPath(value as string, cwd, home) : value, source };
}

function fromEnv(knob: Knob, env: Env, cwd: string, home?: string): Found | undefined {
  if (knob.env === undefined) return undefined;
  const raw = env.get(knob.env);
  // An empty variable counts as unset: `AGENT_MODEL= agent` must not be an error.
  if (raw === undefined || raw.trim() === "") return undefined;
  const source: Source = { kind: "env", detail: knob.env };
  const value = parseTextValue(knob, raw, source);
  return { value: knob.type === "path" ? expandPath(value as string, cwd, home) : value, source };
}

function fromFile(knob: Knob, file: CollectedFile | undefined, home?: string): Found | undefined {
  const entry = file?.entries.get(knob.key);
  if (!file || !entry) return undefined;
  const source: Source = { kind: file.scope, detail: file.file.path };
  const value = parseTomlValue(knob, entry.value, source, entry.pos);
  return {
    value: knob.type === "path"
      ? expandPath(value as string, dirname(file.file.path), home)
      : value,
    source,
  };
}

/**
 * The endpoint the global file names on its own (its base_url, else its preset's): the one
 * its top-level api_key is stored for, whatever flags or env point base_url at this time.
 */
function globalEndpoint(
  global: CollectedFile | undefined,
  providers: readonly ProviderPreset[],
  home: string | undefined,
): string | undefined {
  const url = fromFile(KNOBS_BY_KEY.get("base_url")!, global, home);
  if (url) return url.value as string;
  const preset = fromFile(KNOBS_BY_KEY.get("provider_preset")!, global, home);
  return preset ? providers.find((p) => p.id === preset.value)?.base_url : undefined;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Resolves every knob (spec 2.2) and the provider/model rules (spec 4.3 rule 1). */
export function resolveSettings(input: ResolveInput): Settings {
  const { flags, env, cwd, home } = input;
  const userHome = env.get("HOME");
  const globalPath = globalSettingsPath(home);
  const projectPath = findProjectSettingsFile(cwd, home);

  const skipped: string[] = [];
  const globalLoaded = readSettingsFile(globalPath, skipped);
  const projectLoaded = projectPath ? readSettingsFile(projectPath, skipped) : undefined;
  const global = globalLoaded ? collectFile(globalLoaded, "global") : undefined;
  const project = projectLoaded ? collectFile(projectLoaded, "project") : undefined;
  const warnings: string[] = [
    ...skipped,
    ...(global?.warnings ?? []),
    ...(project?.warnings ?? []),
  ];

  const explicit = new Map<string, Found>();
  for (const knob of KNOBS) {
    if (knob.type === "rows") continue;
    const found = fromFlags(knob, flags, cwd, userHome) ??
      fromEnv(knob, env, cwd, userHome) ??
      fromFile(knob, project, userHome) ??
      fromFile(knob, global, userHome);
    if (found) explicit.set(knob.key, found);
  }

  const values: Record<string, unknown> = {};
  const sources: Record<string, Source> = {};
  const set = (key: string, value: unknown, source: Source) => {
    const knob = KNOBS_BY_KEY.get(key);
    values[knob?.field ?? key] = value;
    sources[key] = source;
  };

  // Presets: built-ins, then the global file's custom rows.
  const customRows = global?.file.table.providers;
  const providers: ProviderPreset[] = [
    ...BUILTIN_PRESETS,
    ...(customRows === undefined || !global
      ? []
      : parseCustomProviders(customRows, global.file, warnings)),
  ];
  set(
    "providers",
    providers,
    customRows === undefined || !global
      ? { kind: "default", detail: "built-in presets" }
      : { kind: "global", detail: global.file.path },
  );

  // MCP servers: both files' tables, project ones replacing global ones of the same name.
  const mcpGlobal = global ? parseMcpServers(global.file, "global", warnings) : [];
  const mcpProject = project ? parseMcpServers(project.file, "project", warnings) : [];
  set("mcp_servers", mergeMcpServers(mcpGlobal, mcpProject), {
    kind: mcpProject.length > 0 ? "project" : mcpGlobal.length > 0 ? "global" : "default",
    ...(mcpProject.length > 0
      ? { detail: project!.file.path }
      : mcpGlobal.length > 0
      ? { detail: global!.file.path }
      : {}),
  });
  set("mcp_approvals", parseMcpApprovals(global?.file), {
    kind: global?.file.table.mcp_approvals === undefined ? "default" : "global",
    ...(global ? { detail: global.file.path } : {}),
  });
  set("project_trust", parseProjectTrust(global?.file), {
    kind: global?.file.table.project_trust === undefined ? "default" : "global",
    ...(global ? { detail: global.file.path } : {}),
  });

  const presetFound = explicit.get("provider_preset");
  const preset = presetFound
    ? findPreset(providers, presetFound.value as string, presetFound.source)
    : undefined;
  const presetRank = presetFound ? RANK[presetFound.source.kind] : Infinity;
  const presetSource: Source | undefined = preset
    ? { kind: "preset", detail: preset.id }
    : undefined;

  // A preset's URL/model/wire yield only to values from an equally or more specific source.
  const withPreset = (key: "provider" | "base_url" | "model"): Found | undefined => {
    const e = explicit.get(key);
    if (preset && presetSource && (!e || RANK[e.source.kind] > presetRank)) {
      return { value: preset[key], source: presetSource };
    }
    return e;
  };

  for (const knob of KNOBS) {
    if (knob.type === "rows" || knob.key === "provider" || knob.key === "model") continue;
    const found = knob.key === "base_url" ? withPreset("base_url") : explicit.get(knob.key);
    if (found) set(knob.key, found.value, found.source);
    else if (knob.default !== undefined) {
      const d = knob.default;
      set(knob.key, Array.isArray(d) ? [...d] : typeof d === "object" ? { ...d } : d, {
        kind: "default",
      });
    }
  }

  const baseUrl = values.base_url as string | undefined;
  const provider = withPreset("provider");
  let wire: WireKind;
  if (provider) {
    wire = provider.value as WireKind;
    set("provider", wire, provider.source);
  } else {
    wire = baseUrl === undefined ? "chat_completions" : "messages";
    set("provider", wire, {
      kind: "default",
      detail: baseUrl === undefined ? "no base_url" : "base_url is set and provider is not",
    });
  }

  const model = withPreset("model");
  if (model) set("model", model.value, model.source);
  else if (baseUrl === undefined || baseUrl.replace(/\/+$/, "") === PUBLIC_BASE_URLS[wire]) {
    set("model", DEFAULT_MODELS[wire], { kind: "default", detail: `built-in model for ${wire}` });
  } else {
    set("model", MODEL_SENTINEL, { kind: "default", detail: "base_url is set: served model" });
  }

  // The Messages API wants 1024 <= budget_tokens < max_tokens: a lower cap leaves none, and the
  // wire then sends no `thinking` (messages_render.ts). Say so rather than let it go quiet.
  const maxTokens = values.max_tokens as number | undefined;
  if (
    wire === "messages" && values.thinking_type === "enabled" && maxTokens !== undefined &&
    maxTokens <= MIN_THINKING_BUDGET
  ) {
    warnings.push(
      `thinking.type = "enabled" needs max_tokens above ${MIN_THINKING_BUDGET} (the Messages ` +
        `API's smallest thinking budget, which must stay below max_tokens); max_tokens is ` +
        `${maxTokens}, so requests go without thinking`,
    );
  }

  const keyEndpoint = globalEndpoint(global, providers, userHome);
  if (keyEndpoint !== undefined) values.api_key_endpoint = keyEndpoint;

  if (values.memory_dir === undefined) {
    set("memory_dir", join(home, "memory"), { kind: "default" });
  }

  const routing = projectRouting(project?.file, values, sources);
  const settings = {
    ...values,
    ...(routing ? { project_routing: routing } : {}),
    sources,
    warnings,
    files: { global: globalPath, ...(projectLoaded ? { project: projectLoaded.path } : {}) },
  } as unknown as Settings;
  return deepFreeze(settings);
}
