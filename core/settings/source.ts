// Where a resolved setting came from: the one type every settings module names, kept apart
// from types.ts so the parsers that produce sources (mcp_servers.ts, project_trust.ts) do not
// import the Settings value's module back.

/**
 * Where a resolved value came from, in precedence order. "preset" marks a value the active
 * provider preset supplied (it ranks just below the source that chose the preset).
 */
export type SourceKind = "flag" | "env" | "project" | "global" | "preset" | "default";
export interface Source {
  kind: SourceKind;
  /** File path for project/global, variable name for env, flag name for flag, preset id for preset. */
  detail?: string;
}
