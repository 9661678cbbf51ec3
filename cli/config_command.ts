// `agent config`: print the resolved settings, one line per key with its value and where the
// value came from. Keys are masked; `--json` gives the same data for scripts.

import { describeSource } from "../core/settings/errors.ts";
import { KNOBS } from "../core/settings/knobs.ts";
import { maskKey } from "../core/settings/mask.ts";
import { describeMcpServer } from "../core/settings/mcp_servers.ts";
import type { ProviderPreset, Settings, Source } from "../core/settings/types.ts";

export interface ConfigRow {
  key: string;
  /** JSON-safe value with secrets masked; null when unset. */
  value: unknown;
  source: Source;
}

function describeRow(p: ProviderPreset): string {
  return `${p.provider} ${p.base_url} model=${p.model} auth=${p.auth_style}`;
}

/** The rows `agent config` shows, in the settings table's order, secrets masked. */
export function configRows(settings: Settings): ConfigRow[] {
  const rows: ConfigRow[] = [];
  const record = settings as unknown as Record<string, unknown>;
  for (const knob of KNOBS) {
    const source = settings.sources[knob.key] ?? { kind: "default", detail: knob.defaultText };
    const value = record[knob.field];
    if (knob.key === "provider_keys" || knob.key === "mcp_keys") {
      const entries = Object.entries(
        knob.key === "mcp_keys" ? settings.mcp_keys : settings.provider_keys,
      );
      if (entries.length === 0) rows.push({ key: knob.key, value: {}, source });
      for (const [id, key] of entries) {
        rows.push({ key: `${knob.key}.${id}`, value: maskKey(key), source });
      }
    } else if (knob.key === "providers") {
      for (const p of settings.providers) {
        rows.push({
          key: `providers.${p.id}`,
          value: describeRow(p),
          source: p.builtin ? { kind: "default", detail: "built-in preset" } : source,
        });
      }
    } else if (knob.key === "mcp_servers") {
      if (settings.mcp_servers.length === 0) rows.push({ key: knob.key, value: {}, source });
      for (const s of settings.mcp_servers) {
        rows.push({
          key: `mcp_servers.${s.name}`,
          // Env values and headers may hold secrets: only their names are shown.
          value: `${s.transport} ${describeMcpServer(s)}${s.enabled ? "" : " (disabled)"}`,
          source: { kind: s.scope, detail: s.file },
        });
      }
    } else if (knob.key === "api_key") {
      rows.push({
        key: knob.key,
        value: value === undefined ? null : maskKey(String(value)),
        source,
      });
    } else {
      rows.push({ key: knob.key, value: value === undefined ? null : value, source });
    }
  }
  return rows;
}

function formatValue(key: string, value: unknown): string {
  if (value === null) return "(unset)";
  if (key.startsWith("providers.") || key.startsWith("mcp_servers.")) return String(value);
  if (key.startsWith("mcp_keys.")) return String(value);
  if (key.startsWith("provider_keys.") || key === "api_key") return String(value);
  return JSON.stringify(value);
}

/** One line for the banner and `agent config` when the model's commands run unconfined. */
export function sandboxOffWarning(settings: Settings): string {
  const source = settings.sources.sandbox;
  const from = source ? ` (${describeSource(source)})` : "";
  return `warning: sandbox is off${from}: the model's shell commands run unsandboxed, with ` +
    "your files and network (docs/sandbox.md)";
}

/** Plain text, one line per key: `temperature = 0.2   (env AGENT_TEMPERATURE)`; no trailing newline. */
export function renderConfig(settings: Settings, options: { json?: boolean } = {}): string {
  if (options.json) return renderConfigJson(settings);
  const rows = configRows(settings).map((r) => ({
    left: `${r.key} = ${formatValue(r.key, r.value)}`,
    source: describeSource(r.source),
  }));
  const width = Math.min(60, Math.max(...rows.map((r) => r.left.length)));
  const lines = [
    `# global settings: ${settings.files?.global ?? "(unknown)"}`,
    `# project settings: ${settings.files?.project ?? "(none found)"}`,
    ...(settings.sandbox === "off" ? [`# ${sandboxOffWarning(settings)}`] : []),
    ...rows.map((r) => `${r.left.padEnd(width)}   (${r.source})`),
  ];
  if (settings.warnings.length > 0) {
    lines.push("", "warnings:", ...settings.warnings.map((w) => `  - ${w}`));
  }
  return lines.join("\n");
}

/** `agent config --json`: { settings: { key: { value, source } }, files, warnings }. */
export function renderConfigJson(settings: Settings): string {
  const out: Record<string, { value: unknown; source: Source }> = {};
  for (const r of configRows(settings)) out[r.key] = { value: r.value, source: r.source };
  return JSON.stringify(
    { settings: out, files: settings.files ?? null, warnings: settings.warnings },
    null,
    2,
  );
}
