// Trust of a project settings file, by content (issue 37 §3b). A project's `.agent/settings.toml`
// comes with the repository (or the model wrote it in an earlier run), and a few of its keys
// decide where the whole prompt goes: system prompt, brief, memory index, the user's words.
// The first time a project file, or a changed one, sets such a key, the run does not send the
// prompt there on its own: an interactive session asks, a headless run refuses with one line
// naming `agent config trust`. The approval is the file's SHA-256, recorded in the global
// settings file under the agent home (`[project_trust]`, file → digest), exactly as project MCP
// servers are approved (mcp_approvals); the model can reach neither.

import { globalSettingsPath } from "./project.ts";
import { tableAt, updateGlobalSettings } from "./settings_file.ts";
import { SettingsError } from "./errors.ts";
import { badValue } from "./values.ts";
import { type LoadedFile, positionOf } from "./toml_file.ts";
import type { Source } from "./source.ts";
import type { ProjectRouting, Settings } from "./types.ts";

/** Keys that change where the prompt is sent: a project file setting one needs trust. */
export const ROUTING_KEYS: readonly string[] = ["base_url", "provider_preset", "provider", "model"];

/** A project file whose routing is not (or no longer) trusted. */
export interface UntrustedProject {
  file: string;
  values: Readonly<Record<string, string>>;
  digest: string;
}

/** The routing a project file decided in `values`/`sources`, or undefined when none. */
export function projectRouting(
  project: LoadedFile | undefined,
  values: Record<string, unknown>,
  sources: Record<string, Source>,
): ProjectRouting | undefined {
  if (!project) return undefined;
  const routed: Record<string, string> = {};
  for (const key of ROUTING_KEYS) {
    if (sources[key]?.kind === "project") routed[key] = String(values[key]);
  }
  if (Object.keys(routed).length === 0) return undefined;
  return { file: project.path, values: routed, text: project.text };
}

/** The global file's `[project_trust]` table: project file → "sha256:<hex>". */
export function parseProjectTrust(file: LoadedFile | undefined): Record<string, string> {
  const value = file?.table.project_trust;
  if (value === undefined || !file) return {};
  const source: Source = { kind: "global", detail: file.path };
  const where = () => positionOf(file, ["project_trust"]);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badValue("project_trust", "a table of project file → digest", value, source, where);
  }
  const out: Record<string, string> = {};
  for (const [project, digest] of Object.entries(value)) {
    if (typeof digest !== "string") {
      const key = `project_trust.${JSON.stringify(project)}`;
      throw badValue(key, "a digest string", digest, source, where);
    }
    out[project] = digest;
  }
  return out;
}

/** "sha256:<hex>" of a settings file's text. */
export async function projectDigest(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256:${[...digest].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The project file that routes the prompt without a matching trust record, or null. */
export async function untrustedProject(settings: Settings): Promise<UntrustedProject | null> {
  const routing = settings.project_routing;
  if (!routing) return null;
  const digest = await projectDigest(routing.text);
  if (settings.project_trust[routing.file] === digest) return null;
  return { file: routing.file, values: routing.values, digest };
}

/** `base_url = "…", model = "…"`: what the file would do, for the question and the refusal. */
export function describeRouting(values: Readonly<Record<string, string>>): string {
  return Object.entries(values).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ");
}

/** The headless refusal: one line, with the command that trusts the file. */
export function untrustedRefusal(u: UntrustedProject, known: boolean): string {
  return `project settings ${u.file} ${known ? "changed and now set" : "set"} ` +
    `${describeRouting(u.values)}, which decide where the prompt is sent, and this version of ` +
    `the file is not trusted: review it, then run \`agent config trust ${u.file}\``;
}

/** Records `digest` as the trusted content of project file `file` (global settings file). */
export function trustProjectFile(home: string, file: string, digest: string): Promise<void> {
  const path = globalSettingsPath(home);
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) {
    return Promise.reject(new SettingsError(`not a digest: ${digest}`, { file: path }));
  }
  return updateGlobalSettings(home, (doc) => {
    tableAt(doc, "project_trust", path)[file] = digest;
  });
}
