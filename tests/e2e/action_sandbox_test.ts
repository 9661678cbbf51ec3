// The GitHub Action's sandbox set-up (scripts/action_sandbox.sh) against each condition it must
// handle, in a container of the project's base image (no bwrap installed, root, no sudo): bwrap
// missing (installed by apt-get, or not installable), user namespaces refused the way AppArmor
// refuses them on GitHub's Ubuntu 24.04 runners (the restriction lifted by sysctl, or sysctl
// refused), namespaces off for another reason, and `sandbox: off`. The restriction is a host
// kernel setting no container reproduces, so `apt-get`, `bwrap` and `sysctl` are stand-ins on
// PATH that play the runner: the sysctl value lives in a state file the bwrap stand-in obeys.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { BASE_IMAGE, podman, ROOT } from "./container_kit.ts";

const STATE = "/tmp/state";
const UID_MAP_DENIED = "bwrap: setting up uid map: Permission denied";

/** The stand-ins, each a small sh script reading and writing $STATE. */
const STAND_INS: Record<string, string> = {
  // kernel.apparmor_restrict_unprivileged_userns: $STATE/restrict holds its value; no file means
  // a kernel without the key. $STATE/sysctl-denied makes writing it fail.
  sysctl: `
key=kernel.apparmor_restrict_unprivileged_userns
case "$1" in
  -n) [ "$2" = "$key" ] && [ -f ${STATE}/restrict ] ||
        { echo "sysctl: cannot stat /proc/sys/kernel/apparmor_restrict_unprivileged_userns: No such file or directory" >&2; exit 255; }
      cat ${STATE}/restrict ;;
  -w) [ -f ${STATE}/sysctl-denied ] && { echo "sysctl: permission denied on key \\"$key\\"" >&2; exit 255; }
      [ "\${2%%=*}" = "$key" ] || exit 255
      echo "\${2#*=}" > ${STATE}/restrict; echo "$key = \${2#*=}" ;;
  *) exit 2 ;;
esac`,
  // bwrap as the kernel lets it run: refused while AppArmor restricts user namespaces, or when
  // $STATE/no-userns says the kernel has them off altogether.
  "bwrap.real": `
echo "$*" >> ${STATE}/bwrap-calls
[ "$(cat ${STATE}/restrict 2>/dev/null)" = 1 ] && { echo "${UID_MAP_DENIED}" >&2; exit 1; }
[ -f ${STATE}/no-userns ] && { echo "bwrap: No permissions to create new namespace" >&2; exit 1; }
exit 0`,
  // apt-get: installs the bwrap stand-in into /opt/bin, unless $STATE/apt-offline.
  "apt-get": `
echo "apt-get $*" >> ${STATE}/apt-calls
case "$1" in
  update) exit 0 ;;
  install) [ -f ${STATE}/apt-offline ] && { echo "E: Unable to locate package bubblewrap" >&2; exit 100; }
           cp /standins/bwrap.real /opt/bin/bwrap && chmod 755 /opt/bin/bwrap ;;
esac`,
};

interface Case {
  name: string;
  /** Shell lines that set the runner's state before the script runs. */
  given: string[];
  sandbox?: string;
}

/** Runs the set-up script once in a fresh container; returns its output, code and the state. */
async function runSetup(dir: string, c: Case) {
  const body = [
    `mkdir -p ${STATE} /opt/bin`,
    ...c.given,
    "bash /action/action_sandbox.sh; code=$?",
    `echo "--- code=$code restrict=$(cat ${STATE}/restrict 2>/dev/null)"`,
    `echo "--- bwrap calls: $(wc -l < ${STATE}/bwrap-calls 2>/dev/null || echo 0)"`,
    `echo "--- apt calls: $(cat ${STATE}/apt-calls 2>/dev/null | tr '\\n' ';')"`,
  ].join("\n");
  const r = await podman([
    "run",
    "--rm",
    "--network=none",
    "-v",
    `${dir}:/standins:ro`,
    "-v",
    `${ROOT}/scripts/action_sandbox.sh:/action/action_sandbox.sh:ro`,
    "-e",
    "PATH=/opt/bin:/standins/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "-e",
    `AGENT_ACTION_SANDBOX=${c.sandbox ?? "auto"}`,
    BASE_IMAGE,
    "bash",
    "-c",
    body,
  ], { allowFail: true });
  assert.equal(r.code, 0, `${c.name}: the container itself failed:\n${r.stderr}`);
  const out = r.stdout;
  const code = Number(/--- code=(\d+)/.exec(out)?.[1]);
  return {
    out,
    code,
    restrict: /--- code=\d+ restrict=(\S*)/.exec(out)?.[1] ?? "",
    bwrapCalls: Number(/--- bwrap calls: (\d+)/.exec(out)?.[1]),
    aptCalls: /--- apt calls: (.*)/.exec(out)?.[1] ?? "",
  };
}

peerTest(
  "the action's sandbox set-up handles bwrap missing, AppArmor's userns restriction and sandbox: off",
  probes.podman,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "agent-action-sandbox-" });
    try {
      await Deno.mkdir(`${dir}/bin`);
      for (const [name, script] of Object.entries(STAND_INS)) {
        // bwrap.real is what apt-get installs; sysctl and apt-get are on PATH from the start.
        const path = name === "bwrap.real" ? `${dir}/${name}` : `${dir}/bin/${name}`;
        await Deno.writeTextFile(path, `#!/bin/sh${script}\n`, { mode: 0o755 });
      }
      const installed = "cp /standins/bwrap.real /opt/bin/bwrap";

      // The base image has no bwrap: apt-get installs it and it works.
      let r = await runSetup(dir, { name: "missing, installable", given: [] });
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /sandbox: installing bubblewrap/);
      assert.match(r.out, /sandbox: bubblewrap works \(\/opt\/bin\/bwrap\)/);
      assert.equal(r.aptCalls, "apt-get update -qq;apt-get install -y -qq bubblewrap;");

      // Missing and not installable: the step fails, saying why and how to opt out.
      r = await runSetup(dir, {
        name: "missing, apt fails",
        given: [`touch ${STATE}/apt-offline`],
      });
      assert.equal(r.code, 1, r.out);
      assert.match(
        r.out,
        /^::error title=agent sandbox::bubblewrap is not installed and apt-get install bubblewrap failed \(E: Unable to locate package bubblewrap\); or set the action's input `sandbox: off`/m,
      );
      assert.equal(r.bwrapCalls, 0);

      // GitHub's Ubuntu 24.04: AppArmor refuses the user namespace until the sysctl is lifted.
      r = await runSetup(dir, {
        name: "apparmor restriction",
        given: [installed, `echo 1 > ${STATE}/restrict`],
      });
      assert.equal(r.code, 0, r.out);
      assert.ok(r.out.includes(`bwrap was refused (${UID_MAP_DENIED})`), r.out);
      assert.match(r.out, /kernel\.apparmor_restrict_unprivileged_userns = 1/);
      assert.match(
        r.out,
        /sandbox: bubblewrap works with kernel\.apparmor_restrict_unprivileged_userns=0/,
      );
      assert.equal(r.restrict, "0", "the fix was applied");
      assert.equal(r.bwrapCalls, 2, "tried, refused, tried again");
      assert.equal(r.aptCalls, "", "nothing installed: bwrap was there");

      // The restriction in place and sysctl refused: the step fails with both reasons.
      r = await runSetup(dir, {
        name: "apparmor restriction, sysctl refused",
        given: [installed, `echo 1 > ${STATE}/restrict`, `touch ${STATE}/sysctl-denied`],
      });
      assert.equal(r.code, 1, r.out);
      assert.match(
        r.out,
        /^::error title=agent sandbox::bubblewrap cannot start \(bwrap: setting up uid map: Permission denied\) and sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0 failed \(sysctl: permission denied on key "kernel\.apparmor_restrict_unprivileged_userns"\); or set the action's input `sandbox: off`/m,
      );
      assert.equal(r.restrict, "1");

      // User namespaces off for another reason (no AppArmor key): no sysctl to try, the hint.
      r = await runSetup(dir, {
        name: "no userns",
        given: [installed, `touch ${STATE}/no-userns`],
      });
      assert.equal(r.code, 1, r.out);
      assert.match(
        r.out,
        /^::error title=agent sandbox::bubblewrap cannot start on this runner \(bwrap: No permissions to create new namespace\): it needs unprivileged user namespaces; or set the action's input `sandbox: off`/m,
      );

      // sandbox: off touches nothing, even with bwrap missing.
      r = await runSetup(dir, { name: "off", given: [], sandbox: "off" });
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /sandbox: off; the agent's shell commands run unsandboxed/);
      assert.equal(r.bwrapCalls, 0);
      assert.equal(r.aptCalls, "");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
