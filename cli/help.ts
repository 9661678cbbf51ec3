// `agent --help`: every flag, generated from the same tables the parser uses.

import { OWN_FLAGS } from "./args.ts";
import { SETTINGS_FLAGS } from "../core/settings/knobs.ts";

export function helpText(): string {
  const row = (flag: string, help: string) => `  ${flag.padEnd(34)} ${help}`;
  const own = OWN_FLAGS.map((f) =>
    row(
      `${f.short ? `-${f.short}, ` : "    "}--${f.name}${f.valueName ? ` ${f.valueName}` : ""}`,
      f.help,
    )
  );
  const settings = SETTINGS_FLAGS.filter((f) => !f.negated).map((f) => {
    const negatable = SETTINGS_FLAGS.some((n) => n.negated && n.key === f.key);
    const name = negatable
      ? `--[no-]${f.name}`
      : `--${f.name}${f.valueName ? ` ${f.valueName}` : ""}`;
    return row(`    ${name}`, f.help);
  });
  return [
    "agent — a terminal agent harness",
    "",
    "Usage:",
    "  agent [options]                         interactive session in the workspace",
    "  agent -p [options] -- PROMPT            headless run; exit 0 ok, 1 error, 2 needs a human",
    "  agent -p --resume ID -- ANSWER          continue a run that stopped for a human",
    "  agent config [--json]                   show resolved settings and where each came from",
    "  agent config set-key PROVIDER           store a provider's API key (read from stdin)",
    "  agent config trust [FILE]               trust a project settings file that picks the endpoint",
    "  agent sessions                          list saved sessions",
    "  agent mcp list|add|remove|test|approve  MCP servers (agent mcp for the forms)",
    "  agent adoption validate [FILE]          check an adoption declaration (default:",
    "                                          adoption-declaration.json at the repository root)",
    "",
    "The prompt goes after a literal -- so a prompt starting with a dash is not read as an",
    "option; a single quoted prompt without -- works too.",
    "",
    "Options:",
    ...own,
    "",
    "Settings (flag > AGENT_* env > .agent/settings.toml > ~/.agent/settings.toml > default):",
    ...settings,
    "",
    "Environment: AGENT_HOME (default ~/.agent) holds settings.toml, sessions/ and memory/.",
    "Headless example for CI:",
    '  agent -p --workdir . --mode strict --output report.md --output-format json -- "review the diff"',
  ].join("\n");
}
