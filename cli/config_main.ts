// `agent config [--json]`: the resolved settings with the source of each value, keys masked.
// `agent config set-key PROVIDER`: stores a provider's API key in the global settings file,
// read from stdin so it never shows in the process list or the shell history.
// `agent config trust [FILE]`: trusts a project settings file's content (cli/config_trust.ts).

import type { ParsedArgs } from "./args.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { agentHome, globalSettingsPath } from "../core/settings/project.ts";
import { setProviderKey } from "../core/settings/settings_file.ts";
import { findPreset } from "../core/settings/presets.ts";
import { processEnv } from "../core/ports.ts";
import { renderConfig, renderConfigJson } from "./config_command.ts";

export async function runConfig(args: ParsedArgs, out: (t: string) => void): Promise<number> {
  const home = agentHome(processEnv);
  const cwd = args.workdir ?? Deno.cwd();
  const settings = resolveSettings({ flags: args.settingsFlags, env: processEnv, cwd, home });
  if (args.setKeyFor !== undefined) {
    // A key stored under a name no preset has would never be used: refuse it now.
    findPreset(settings.providers, args.setKeyFor);
    return await setKey(args.setKeyFor, home, out);
  }
  if (args.trustFile !== undefined) {
    const { trustCommand } = await import("./config_trust.ts");
    return await trustCommand(args.trustFile, settings, home, cwd, out);
  }
  out((args.json ? renderConfigJson(settings) : renderConfig(settings)) + "\n");
  return 0;
}

async function setKey(provider: string, home: string, out: (t: string) => void): Promise<number> {
  let key: string;
  if (Deno.stdin.isTerminal()) {
    out(`paste the API key for ${provider} and press enter (it is not shown): `);
    key = await readHidden();
    out("\n");
  } else {
    key = await readFirstLine();
  }
  await setProviderKey(home, provider, key.trim());
  out(
    `stored provider_keys.${provider} in ${globalSettingsPath(home)}; it is used while the ` +
      `provider preset is ${provider} (--preset ${provider}, AGENT_PRESET or provider_preset)\n`,
  );
  return 0;
}

export async function readFirstLine(): Promise<string> {
  let text = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  return text.split("\n")[0] ?? "";
}

/** A line typed (or pasted) at the terminal without echoing it; ctrl+c gives up. */
export async function readHidden(): Promise<string> {
  Deno.stdin.setRaw(true);
  const buf = new Uint8Array(4096);
  let text = "";
  try {
    for (;;) {
      const n = await Deno.stdin.read(buf);
      if (n === null) return text;
      for (const ch of new TextDecoder().decode(buf.subarray(0, n))) {
        if (ch === "\r" || ch === "\n") return text;
        if (ch === "\x03") throw new Error("cancelled; nothing was stored");
        if (ch === "\x7f" || ch === "\b") text = text.slice(0, -1);
        else if (ch >= " ") text += ch;
      }
    }
  } finally {
    Deno.stdin.setRaw(false);
  }
}
