// `agent config [--json]`: the resolved settings with the source of each value, keys masked.

import type { ParsedArgs } from "./args.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { agentHome } from "../core/settings/project.ts";
import { processEnv } from "../core/ports.ts";
import { renderConfig, renderConfigJson } from "./config_command.ts";

export function runConfig(args: ParsedArgs, out: (t: string) => void): Promise<number> {
  const cwd = args.workdir ?? Deno.cwd();
  const settings = resolveSettings({
    flags: args.settingsFlags,
    env: processEnv,
    cwd,
    home: agentHome(processEnv),
  });
  out((args.json ? renderConfigJson(settings) : renderConfig(settings)) + "\n");
  return Promise.resolve(0);
}
