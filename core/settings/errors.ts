// Typed settings errors. Every message names what was wrong, where it came from and what
// to do, because settings mistakes are made by hand and fixed by hand.

import { TomlError } from "smol-toml";
import type { Source } from "./source.ts";

export interface SettingsErrorData {
  /** The setting key ("temperature", "thinking.type", "providers[1].base_url"). */
  key?: string;
  source?: Source;
  file?: string;
  /** 1-based, when known. */
  line?: number;
  /** 1-based, when known. */
  column?: number;
}

export class SettingsError extends Error {
  override name = "SettingsError";
  readonly key?: string;
  readonly source?: Source;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;

  constructor(message: string, data: SettingsErrorData = {}, options?: ErrorOptions) {
    super(message, options);
    if (data.key !== undefined) this.key = data.key;
    if (data.source !== undefined) this.source = data.source;
    if (data.file !== undefined) this.file = data.file;
    if (data.line !== undefined) this.line = data.line;
    if (data.column !== undefined) this.column = data.column;
  }
}

/** "flag --temperature", "env AGENT_TEMPERATURE", "global /h/settings.toml", "default". */
export function describeSource(source: Source): string {
  switch (source.kind) {
    case "flag":
      return `flag ${source.detail ?? ""}`.trim();
    case "env":
      return `env ${source.detail ?? ""}`.trim();
    case "project":
      return `project ${source.detail ?? ".agent/settings.toml"}`;
    case "global":
      return `global ${source.detail ?? "settings.toml"}`;
    case "preset":
      return `preset ${source.detail ?? ""}`.trim();
    case "default":
      return source.detail ? `default: ${source.detail}` : "default";
  }
}

/** " (line 3, column 7)" or "" when the position is unknown. */
export function describePosition(line?: number, column?: number): string {
  if (line === undefined) return "";
  return column === undefined ? ` (line ${line})` : ` (line ${line}, column ${column})`;
}

/** Wraps smol-toml's parse error into a SettingsError naming the file, line and column. */
export function tomlSyntaxError(file: string, err: unknown, refusingWrite = false): SettingsError {
  if (err instanceof TomlError) {
    const reason = (err.message.split("\n")[0] ?? err.message).replace(
      /^Invalid TOML document:\s*/,
      "",
    );
    const what = refusingWrite
      ? `Refusing to write ${file}: it is not valid TOML`
      : `Settings file ${file} is not valid TOML`;
    const todo = refusingWrite
      ? "Fix the file by hand and retry; it was left untouched."
      : "Fix the file by hand (the agent never overwrites a malformed settings file).";
    return new SettingsError(
      `${what} at line ${err.line}, column ${err.column}: ${reason}\n${err.codeblock}${todo}`,
      { file, line: err.line, column: err.column },
      { cause: err },
    );
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new SettingsError(`Could not read settings file ${file}: ${msg}`, { file }, {
    cause: err,
  });
}
