// No program of this project contacts anything but the model server once installed (issue:
// fast and offline). Two real checks of offline_scenario.ts (both wires and an outpost fire):
// inside a network namespace that has only loopback, and under strace with the network up,
// where every connect() must go to a loopback address.

import assert from "node:assert/strict";
import { commandOnPath, peerTest } from "../peers.ts";
import { RUN_ENV } from "../../scripts/permissions.ts";
import { agentArgs, ROOT } from "./agent_process.ts";

const SCENARIO = ["run", "--cached-only", "-A", `${ROOT}/tests/e2e/offline_scenario.ts`];

function netnsProbe(): string | null {
  if (!commandOnPath("unshare") || !commandOnPath("ip")) return "unshare or ip not installed";
  const out = new Deno.Command("unshare", { args: ["--net", "true"], stderr: "piped" })
    .outputSync();
  return out.success
    ? null
    : `unshare --net failed (needs root or user namespaces): ${
      new TextDecoder().decode(out.stderr)
    }`;
}

const straceProbe = () =>
  commandOnPath("strace") ? null : "strace not installed (apt-get install strace)";

async function output(cmd: string, args: string[]) {
  const out = await new Deno.Command(cmd, {
    args,
    env: { ...RUN_ENV },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

peerTest(
  "both wires and an outpost fire work in a namespace with only loopback",
  netnsProbe,
  async () => {
    // Bundle the agent here, with the network up (a fresh machine fetches esbuild once): in the
    // namespace the scenario's kit then finds the same bundle and esbuild already cached.
    await agentArgs();
    const script = `ip link set lo up && exec "$0" "$@"`;
    const r = await output("unshare", ["--net", "sh", "-c", script, Deno.execPath(), ...SCENARIO]);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout.trim().split("\n").at(-1)!), {
      ok: true,
      chat_completions: "ok",
      messages: "ok",
      outpost: "ok",
    });
  },
);

/** The addresses of every AF_INET/AF_INET6 connect() in an `strace -f -e trace=connect` log. */
export function connectTargets(log: string): string[] {
  const targets: string[] = [];
  for (const line of log.split("\n")) {
    if (!line.includes("connect(")) continue;
    const v4 = /sin_addr=inet_addr\("([^"]+)"\)/.exec(line);
    const v6 = /inet_pton\(AF_INET6, "([^"]+)"/.exec(line);
    if (v4) targets.push(v4[1]!);
    if (v6) targets.push(v6[1]!);
  }
  return targets;
}

export function isLoopback(addr: string): boolean {
  return /^127\./.test(addr) || addr === "::1" || /^::ffff:127\./.test(addr);
}

Deno.test("connectTargets reads IPv4 and IPv6 targets from strace lines", () => {
  const log = [
    `123 connect(5, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("104.16.1.35")}, 16) = -1 EINPROGRESS`,
    `124 connect(6, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0`,
    `125 connect(7, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = 0`,
  ].join("\n");
  assert.deepEqual(connectTargets(log), ["104.16.1.35", "::1"]);
  assert.deepEqual(connectTargets(log).filter((a) => !isLoopback(a)), ["104.16.1.35"]);
});

peerTest(
  "with the network up, every connection of several runs goes to loopback",
  straceProbe,
  async () => {
    await agentArgs(); // as above: any fetch of esbuild happens before strace watches
    const dir = await Deno.makeTempDir({ prefix: "agent-strace-" });
    try {
      const log = `${dir}/connect.log`;
      for (let pass = 0; pass < 2; pass++) {
        const r = await output("strace", [
          "-f",
          "-qq",
          "-e",
          "trace=connect",
          "-o",
          log,
          Deno.execPath(),
          ...SCENARIO,
        ]);
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
        const targets = connectTargets(await Deno.readTextFile(log));
        assert.ok(targets.length > 0, "strace saw no connection at all: the check would be blind");
        assert.deepEqual(targets.filter((a) => !isLoopback(a)), [], "non-loopback connections");
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
