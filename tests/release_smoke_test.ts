// scripts/release_smoke.ts, the check release.yml runs on each target's runner, tried here on
// the programs as `deno task install` builds them (its launchers stand in for the compiled
// binaries, which cannot be compiled on this machine): it passes on working programs and names
// the check that fails on a broken one.

import assert from "node:assert/strict";
import { launcherScript } from "../scripts/install.ts";
import { VERSION } from "../cli/version.ts";
import { agentArgs } from "./e2e/agent_process.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

async function smoke(dir: string, version: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/release_smoke.ts`, dir, version],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("the release smoke check passes on working programs and names what fails", async () => {
  await agentArgs(); // builds the agent's bundle, which its launcher runs
  const dir = await Deno.makeTempDir({ prefix: "agent-release-bin-" });
  try {
    for (const program of ["agent", "agent-outpost"] as const) {
      const script = launcherScript(program, Deno.execPath(), ROOT, DENO_DIR, dir);
      await Deno.writeTextFile(`${dir}/${program}`, script, { mode: 0o755 });
    }
    const ok = await smoke(dir, VERSION);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /^ok {3}--version\nok {3}headless turn\nok {3}outpost \/healthz\n$/);

    const wrong = await smoke(dir, "9.9.9");
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^FAIL --version$/m);
    assert.match(wrong.stderr, /expected "agent 9\.9\.9"/);

    // An outpost that cannot start is named too.
    await Deno.writeTextFile(`${dir}/agent-outpost`, "#!/bin/sh\necho broken >&2\nexit 3\n");
    const broken = await smoke(dir, VERSION);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /^FAIL outpost \/healthz$/m);
    assert.match(broken.stderr, /agent-outpost ended before listening/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
