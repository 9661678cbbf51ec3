// No container engine runs here, so the Containerfile is checked for what can be checked
// without building it: the binaries it copies are the ones the compile script produces, the
// entrypoint command is one agent-outpost accepts, and its environment resolves to the
// paths and addresses the programs read.

import assert from "node:assert/strict";
import { compileArgs } from "../scripts/compile.ts";
import { ENTRY_POINTS, type ProgramName } from "../scripts/permissions.ts";
import { resolveAgentCommand, serveConfig } from "../server/commands/serve.ts";
import { envFrom } from "../core/ports.ts";
import { agentHome } from "../core/settings/project.ts";

const text = await Deno.readTextFile(new URL("../Containerfile", import.meta.url));
const lines = text.split("\n").filter((l) => !l.trimStart().startsWith("#"));
const joined = lines.join("\n").replace(/\\\n\s*/g, " ");

function instruction(name: string): string[] {
  return joined.split("\n").filter((l) => l.startsWith(`${name} `)).map((l) =>
    l.slice(name.length + 1).trim()
  );
}

function containerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of instruction("ENV")) {
    for (const m of line.matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]!] = m[2]!;
  }
  return env;
}

Deno.test("the build stage compiles both programs into the directory the runtime stage copies from", () => {
  const run = instruction("RUN").find((r) => r.includes("deno task compile"));
  assert.ok(run, "a RUN step compiles with deno task compile");
  const out = /--out (\S+)/.exec(run!)![1]!;
  const copy = instruction("COPY").find((c) => c.startsWith("--from=build"))!;
  for (const name of Object.keys(ENTRY_POINTS) as ProgramName[]) {
    const built = compileArgs(name, { out });
    const output = built[built.indexOf("--output") + 1]!;
    assert.ok(copy.includes(output), `COPY takes ${output}`);
  }
  assert.match(copy, /\/usr\/local\/bin\/$/);
});

Deno.test("every source directory the build stage copies exists in the repository", async () => {
  for (const c of instruction("COPY").filter((c) => !c.startsWith("--from"))) {
    const sources = c.split(/\s+/).slice(0, -1);
    for (const s of sources) await Deno.stat(new URL(`../${s}`, import.meta.url));
  }
});

Deno.test("the entrypoint runs agent-outpost serve, reachable from outside the container", () => {
  const entry = JSON.parse(instruction("ENTRYPOINT")[0]!) as string[];
  const cmd = JSON.parse(instruction("CMD")[0]!) as string[];
  assert.equal(entry.at(-1), "/usr/local/bin/agent-outpost");
  assert.deepEqual(cmd, ["serve"]);
  const env = envFrom(containerEnv());
  const config = serveConfig([], env);
  assert.notEqual(config, "help");
  if (config !== "help") {
    assert.equal(config.host, "0.0.0.0");
    assert.equal(config.port, Number(containerEnv().AGENT_OUTPOST_PORT));
    assert.ok(instruction("EXPOSE").includes(String(config.port)));
  }
});

Deno.test("the container's environment points the runner at the copied agent binary and the data volume", () => {
  const env = containerEnv();
  assert.deepEqual(resolveAgentCommand(envFrom(env), "/usr/local/bin/agent-outpost"), {
    command: "/usr/local/bin/agent",
    args: [],
  });
  assert.equal(agentHome(envFrom(env)), "/data");
  assert.ok(instruction("VOLUME")[0]!.includes("/data"));
  assert.equal(env.AGENT_SANDBOX, "container");
  assert.ok(instruction("USER")[0] !== "root", "runs as a non-root user");
});

Deno.test("the runtime installs bubblewrap and leaves the sandbox setting at its default (auto)", () => {
  const install = instruction("RUN").find((r) => r.includes("apt-get install"));
  assert.match(install ?? "", /\bbubblewrap\b/);
  const env = containerEnv();
  // The container is the outer wall, the sandbox the inner one: nothing here turns it off.
  assert.equal(env.AGENT_SANDBOX_MODE, undefined);
  assert.equal(env.AGENT_SANDBOX, "container");
});
