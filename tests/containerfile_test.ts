// What the Containerfile promises that a build here cannot show: the release (compiled) path
// puts the compile script's outputs where the runtime stage expects them, the entrypoint is a
// command agent-outpost accepts, its environment resolves to the paths the programs read, and
// no secret is baked in. tests/e2e/container_test.ts builds and runs the from-source image.

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

Deno.test("both build paths put the programs where the runtime stage runs them", () => {
  const run = instruction("RUN").find((r) => r.includes("deno task compile"));
  assert.ok(run, "a RUN step compiles with deno task compile");
  const copy = instruction("COPY").find((c) => c.startsWith("--from=build"))!;
  assert.equal(copy, "--from=build /stage/ /", "the staged tree lands on the runtime's root");
  const out = /deno task compile --target host --out (\S+)/.exec(run!)![1]!;
  const installed = /deno task install --bin-dir (\S+)/.exec(run!)![1]!;
  assert.equal(installed, out, "source launchers and compiled binaries share one place");
  for (const name of Object.keys(ENTRY_POINTS) as ProgramName[]) {
    const built = compileArgs(name, { out });
    const output = built[built.indexOf("--output") + 1]!;
    assert.equal(output.replace(/^\/stage/, ""), `/usr/local/bin/${name}`);
  }
  assert.match(run!, /PROGRAMS must be compiled or source/, "any other PROGRAMS is refused");
});

Deno.test("the base image, the deno image and the build kind are build arguments", () => {
  const args: Record<string, string> = {};
  for (const [name, value] of instruction("ARG").map((a) => a.split("="))) {
    if (value !== undefined) args[name!] = value; // a bare ARG in a stage reuses the global one
  }
  assert.equal(args.BASE_IMAGE, "docker.io/library/debian:bookworm-slim");
  assert.equal(args.DENO_IMAGE, `docker.io/denoland/deno:bin-${Deno.version.deno}`);
  assert.equal(args.PROGRAMS, "compiled");
  const froms = instruction("FROM");
  assert.deepEqual(froms, ["${DENO_IMAGE} AS deno", "${BASE_IMAGE} AS build", "${BASE_IMAGE}"]);
});

Deno.test("the runtime has tini as PID 1, bubblewrap, both volumes, a health check and no secret", () => {
  const apt = instruction("RUN").find((r) => r.includes("apt-get install"))!;
  for (const pkg of ["tini", "bubblewrap", "git", "ca-certificates"]) {
    assert.ok(apt.split(/\s+/).includes(pkg), `installs ${pkg}`);
  }
  assert.deepEqual(JSON.parse(instruction("ENTRYPOINT")[0]!).slice(0, 2), ["/usr/bin/tini", "--"]);
  assert.deepEqual(JSON.parse(instruction("VOLUME")[0]!), ["/data", "/workspaces"]);
  const health = instruction("HEALTHCHECK")[0]!;
  assert.match(health, /\/dev\/tcp\/127\.0\.0\.1\/\$\{AGENT_OUTPOST_PORT:-7317\}/);
  assert.match(health, /GET \/healthz /);
  assert.doesNotMatch(
    joined,
    /^(ENV|ARG)\b.*\b(MX_[A-Z]+|VAPID_[A-Z_]+)=/m,
    "secrets come at run time",
  );
  assert.doesNotMatch(joined, /^COPY\b.*(\.env|\.pem|secret)/m);
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

Deno.test("DENO_CERT has a default, and a failed build names the TLS-proxy fix", () => {
  // Every ARG a RUN uses has a value, so a normal build prints no "missing build argument".
  const declared = instruction("ARG").map((a) => a.split("=")[0]!);
  const bare = instruction("ARG").filter((a) => !a.includes("=")).map((a) => a.trim());
  const globals = new Set(
    instruction("ARG").filter((a) => a.includes("=")).map((a) => a.split("=")[0]!),
  );
  assert.ok(declared.includes("DENO_CERT"));
  for (const name of bare) assert.ok(globals.has(name), `ARG ${name} has no default anywhere`);
  assert.ok(instruction("ARG").includes('DENO_CERT=""'), instruction("ARG").join(" | "));
  const run = instruction("RUN").find((r) => r.includes("deno task install"))!;
  assert.match(run, /invalid peer certificate: UnknownIssuer/);
  assert.match(run, /--build-arg DENO_CERT=\/run\/host-ca\.crt/);
  assert.match(run, /docs\/deployment\.md/);
  // The launchers run the image's one Deno, not a second copy kept under /opt/agent/.build.
  assert.match(run, /deno task install --bin-dir \S+ --runtime \/usr\/local\/bin\/deno /);
  assert.match(run, /cp \/usr\/local\/bin\/deno \/stage\/usr\/local\/bin\/deno/);
});
