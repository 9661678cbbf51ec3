// Settings resolution runs on every `agent` start (interactive and each scheduled child),
// so its cost is part of startup latency.

import { join } from "../path.ts";
import { envFrom } from "../ports.ts";
import { resolveEndpoint } from "./keys.ts";
import { resolveSettings } from "./resolve.ts";
import { setProviderKey } from "./settings_file.ts";

const root = Deno.makeTempDirSync({ prefix: "agent_settings_bench_" });
const home = join(root, ".agent");
const project = join(root, "proj");
const cwd = join(project, "a", "b", "c");
Deno.mkdirSync(home, { recursive: true });
Deno.mkdirSync(join(project, ".git"), { recursive: true });
Deno.mkdirSync(join(project, ".agent"), { recursive: true });
Deno.mkdirSync(cwd, { recursive: true });
const rows = Array.from(
  { length: 20 },
  (_, i) => `[[providers]]\nid = "p${i}"\nbase_url = "http://p${i}.test/v1"\nmodel = "m${i}"\n`,
).join("\n");
const keys = Array.from({ length: 20 }, (_, i) => `p${i} = "sk-key-${i}-abcdefgh"`).join("\n");
Deno.writeTextFileSync(
  join(home, "settings.toml"),
  `provider_preset = "p3"\ntemperature = 0.4\nmodel_favorites = ["a", "b", "c"]\n` +
    `[thinking]\ntype = "enabled"\n[provider_keys]\n${keys}\n${rows}`,
);
Deno.writeTextFileSync(
  join(project, ".agent", "settings.toml"),
  `memory_reflect = false\n[compaction]\nthreshold = 0.8\n`,
);
const empty = join(root, "empty");
Deno.mkdirSync(join(empty, ".git"), { recursive: true });
const env = envFrom({ AGENT_MAX_TOKENS: "16000", AGENT_STRICT_TOOLS: "1", HOME: root });

Deno.bench("resolveSettings: flags + env + project + global (20 custom rows)", () => {
  resolveSettings({ flags: { temperature: "0.2" }, env, cwd, home });
});

Deno.bench("resolveSettings: no files (defaults only)", () => {
  resolveSettings({ flags: {}, env: envFrom({}), cwd: empty, home: join(empty, "nohome") });
});

const settings = resolveSettings({ flags: {}, env, cwd, home });
Deno.bench("resolveEndpoint (key resolution included)", () => {
  resolveEndpoint(settings, env);
});

Deno.bench("setProviderKey: read-merge-write with fsync", async () => {
  await setProviderKey(home, "p1", "sk-rotated-abcdefgh");
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
});
