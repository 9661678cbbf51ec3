// Command-line parsing for `agent`. The agent's own flags plus every settings flag from
// core/settings/knobs.ts. Unknown flags are a one-line error, never a stack trace.

import { closestKey } from "../core/settings/suggest.ts";
import { SETTINGS_FLAGS, settingsParseArgsOptions } from "../core/settings/knobs.ts";
import type { Flags } from "../core/settings/resolve.ts";
import { PERMISSION_MODES, type PermissionMode } from "../core/agent/permissions.ts";
import { MEMORY_SCOPES, type MemoryScope } from "../core/memory/memory_scope.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface OwnFlag {
  name: string;
  short?: string;
  type: "string" | "boolean";
  valueName?: string;
  help: string;
}

export const OWN_FLAGS: readonly OwnFlag[] = [
  {
    name: "print",
    short: "p",
    type: "boolean",
    help: "Headless: run the prompt to completion and exit (0 ok, 1 error, 2 needs a human)",
  },
  {
    name: "workdir",
    type: "string",
    valueName: "<dir>",
    help: "Workspace to run in (default: the current directory)",
  },
  {
    name: "mode",
    type: "string",
    valueName: "<auto|strict|plan>",
    help:
      "Permission mode: auto applies edits; strict makes every edit or shell call need a human; plan denies them (default auto)",
  },
  {
    name: "output",
    type: "string",
    valueName: "<file>",
    help: "Headless: write the markdown run report here (directories are created)",
  },
  {
    name: "output-format",
    type: "string",
    valueName: "<text|json>",
    help: "Headless: stdout gets the final answer (text, default) or one JSON result object (json)",
  },
  {
    name: "resume",
    type: "string",
    valueName: "<session-id>",
    help:
      "Continue a saved session in its saved workdir (--workdir, if given, must be that folder); with -p the prompt is the answer to its open question",
  },
  {
    name: "max-turns",
    type: "string",
    valueName: "<n>",
    help: "Stop after this many model turns (default 100)",
  },
  {
    name: "effort",
    type: "string",
    valueName: "<level>",
    help: "Reasoning effort for this run (vocabulary depends on the backend; see /effort)",
  },
  {
    name: "memory-scope",
    type: "string",
    valueName: "<all|workspace>",
    help:
      "Which memory files the memory tool may reach: all (default) or workspace (only this workspace's, global ones and MEMORY.md; the outpost sets it for runs started by untrusted input)",
  },
  { name: "json", type: "boolean", help: "With `agent config`: print JSON" },
  { name: "help", short: "h", type: "boolean", help: "Show this help" },
  { name: "version", short: "V", type: "boolean", help: "Print the version" },
];

export interface ParsedArgs {
  command: "run" | "config" | "sessions" | "adoption";
  headless: boolean;
  workdir?: string;
  mode: PermissionMode;
  /** --memory-scope; absent means "all". */
  memoryScope?: MemoryScope;
  output?: string;
  outputFormat: "text" | "json";
  resume?: string;
  maxTurns?: number;
  effort?: string;
  json: boolean;
  help: boolean;
  version: boolean;
  prompt?: string;
  /** `agent config set-key PROVIDER`: store that provider's API key, read from stdin. */
  setKeyFor?: string;
  /** `agent config trust [FILE]`: trust a project settings file ("" = the one found here). */
  trustFile?: string;
  /** The words after a subcommand that parses its own (`agent adoption validate FILE`). */
  commandArgs?: string[];
  /** Settings flags, keyed by flag name, for resolveSettings. */
  settingsFlags: Flags;
}

export function parseAgentArgs(argv: readonly string[]): ParsedArgs {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    ...settingsParseArgsOptions(),
  };
  for (const f of OWN_FLAGS) {
    options[f.name] = f.short ? { type: f.type, short: f.short } : { type: f.type };
  }
  const dashDash = argv.indexOf("--");
  const before = dashDash === -1 ? [...argv] : argv.slice(0, dashDash);
  const after = dashDash === -1 ? [] : argv.slice(dashDash + 1);

  const parsed = parseFlags(before, options);
  const v = parsed.values;
  const positionals = [...parsed.positionals];
  let command: ParsedArgs["command"] = "run";
  if (positionals[0] === "config" || positionals[0] === "sessions") {
    command = positionals.shift() as "config" | "sessions";
  }
  // `agent adoption validate [FILE]`: its words are cli/adoption.ts's to check.
  let commandArgs: string[] | undefined;
  if (positionals[0] === "adoption") {
    positionals.shift();
    command = "adoption";
    commandArgs = positionals.splice(0);
  }
  let setKeyFor: string | undefined;
  let trustFile: string | undefined;
  if (command === "config" && positionals[0] === "set-key") {
    if (positionals.length !== 2) {
      throw new UsageError("usage: agent config set-key PROVIDER < file-holding-the-key");
    }
    setKeyFor = positionals[1];
    positionals.length = 0;
  } else if (command === "config" && positionals[0] === "trust") {
    if (positionals.length > 2) throw new UsageError("usage: agent config trust [FILE]");
    trustFile = positionals[1] ?? "";
    positionals.length = 0;
  } else if (command === "config" && positionals.length > 0) {
    throw new UsageError(`unknown config command "${positionals[0]}"; try set-key or trust`);
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `expected one prompt but got ${positionals.length} words; quote the prompt or put it after --`,
    );
  }
  if (after.length > 0 && positionals.length > 0) {
    throw new UsageError("give the prompt either before or after --, not both");
  }
  const prompt = after.length > 0 ? after.join(" ") : positionals[0];

  const mode = (v.mode ?? "auto") as string;
  if (!PERMISSION_MODES.includes(mode as PermissionMode)) {
    throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(", ")}; got "${mode}"`);
  }
  const memoryScope = v["memory-scope"];
  if (memoryScope !== undefined && !MEMORY_SCOPES.includes(memoryScope as MemoryScope)) {
    throw new UsageError(
      `--memory-scope must be one of ${MEMORY_SCOPES.join(", ")}; got "${memoryScope}"`,
    );
  }
  const outputFormat = (v["output-format"] ?? "text") as string;
  if (outputFormat !== "text" && outputFormat !== "json") {
    throw new UsageError(`--output-format must be text or json; got "${outputFormat}"`);
  }
  let maxTurns: number | undefined;
  if (v["max-turns"] !== undefined) {
    maxTurns = Number(v["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      throw new UsageError(`--max-turns must be a positive integer; got "${v["max-turns"]}"`);
    }
  }
  const settingsFlags: Flags = {};
  for (const f of SETTINGS_FLAGS) if (v[f.name] !== undefined) settingsFlags[f.name] = v[f.name];

  const result: ParsedArgs = {
    command,
    headless: v.print === true,
    mode: mode as PermissionMode,
    outputFormat,
    json: v.json === true,
    help: v.help === true,
    version: v.version === true,
    settingsFlags,
  };
  if (typeof v.workdir === "string") result.workdir = v.workdir;
  if (typeof memoryScope === "string") result.memoryScope = memoryScope as MemoryScope;
  if (typeof v.output === "string") result.output = v.output;
  if (typeof v.resume === "string") result.resume = v.resume;
  if (typeof v.effort === "string") result.effort = v.effort;
  if (maxTurns !== undefined) result.maxTurns = maxTurns;
  if (setKeyFor !== undefined) result.setKeyFor = setKeyFor;
  if (trustFile !== undefined) result.trustFile = trustFile;
  if (prompt !== undefined) result.prompt = prompt;
  if (commandArgs !== undefined) result.commandArgs = commandArgs;
  return result;
}

/**
 * A strict GNU-style flag parser (`--name value`, `--name=value`, `-x`). Deliberately small:
 * node:util's parseArgs would pull Deno's Node layer onto the start-up path.
 */
export function parseFlags(
  args: readonly string[],
  options: Record<string, { type: "string" | "boolean"; short?: string }>,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const byShort = new Map(
    Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name]] : [])),
  );
  const values: Record<string, string | boolean | undefined> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (eq !== -1) inline = arg.slice(eq + 1);
    } else {
      const long = arg.length === 2 ? byShort.get(arg[1]!) : undefined;
      if (!long) throw new UsageError(`unknown option ${arg}`);
      name = long;
    }
    const option = options[name];
    if (!option) {
      const guess = closestKey(name, Object.keys(options));
      throw new UsageError(`unknown option --${name}${guess ? `; did you mean --${guess}?` : ""}`);
    }
    if (option.type === "boolean") {
      if (inline !== undefined) throw new UsageError(`option --${name} does not take a value`);
      values[name] = true;
    } else if (inline !== undefined) {
      values[name] = inline;
    } else {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith("-") && next !== "-" && !/^-\d/.test(next))) {
        throw new UsageError(`option --${name} needs a value`);
      }
      values[name] = next;
      i++;
    }
  }
  return { values, positionals };
}
