// A dormant messenger never loads matrix-js-sdk (spec 5.6): the real agent-outpost, started
// with the permission flags of scripts/permissions.ts plus --inspect, is asked through V8's
// inspector which scripts it has parsed. Debugger.enable reports every script already in the
// isolate, npm modules included, so an eager import anywhere (wiring, start.ts, a static
// import of the transport) shows up as a matrix-js-sdk URL. The configured outpost is the
// control: the same check must see the SDK there, or the check itself would prove nothing.

import assert from "node:assert/strict";
import { denoRunArgs } from "../../scripts/permissions.ts";
import { childEnv, ROOT } from "./agent_process.ts";
import { INSPECTOR_LINE, readUntil, scriptUrls } from "./inspector_kit.ts";

/** The URLs of every script V8 has parsed in the outpost, read once it is listening. */
async function loadedScripts(env: Record<string, string>): Promise<string[]> {
  const home = await Deno.makeTempDir({ prefix: "outpost_dormant_" });
  const [run, ...rest] = denoRunArgs("agent-outpost", ROOT);
  const child = new Deno.Command(Deno.execPath(), {
    // --inspect only observes; the permission flags stay exactly those of the program.
    args: [run!, "--inspect=127.0.0.1:0", ...rest, "--port", "0"],
    env: childEnv({ home, ...env }),
    clearEnv: true,
    cwd: home,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = readUntil(child.stdout, /listening on http:\/\/127\.0\.0\.1:\d+\//);
  const stderr = readUntil(child.stderr, INSPECTOR_LINE);
  try {
    const inspector = (await stderr)[1]!;
    await stdout; // the outpost finished opening (the bot, if any, is started before this)
    return await scriptUrls(inspector);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(home, { recursive: true });
  }
}

const SDK = /matrix-js-sdk|core\/messenger\/matrix_sdk_transport\.ts/;

Deno.test("a dormant outpost never loads matrix-js-sdk; a configured one does (the control)", async () => {
  const mx = {
    // Nothing listens on port 9: the configured bot starts and its sync just fails.
    MX_HOMESERVER: "http://127.0.0.1:9",
    MX_TOKEN: "syt_test_token",
    MX_ROOM: "!ops:localhost",
    MX_ALLOWLIST: "@alice:localhost",
  };
  for (const missing of ["MX_TOKEN", "MX_HOMESERVER"]) {
    const env: Record<string, string> = { ...mx };
    delete env[missing];
    const dormant = await loadedScripts(env);
    // The enumeration saw the outpost's own modules, so an empty list cannot pass.
    assert.ok(dormant.some((u) => u.endsWith("/server/wiring.ts")), "wiring.ts not listed");
    assert.deepEqual(dormant.filter((u) => SDK.test(u)), [], `${missing} missing`);
  }
  const configured = await loadedScripts(mx);
  assert.ok(
    configured.some((u) => /matrix-js-sdk/.test(u)),
    "the configured outpost should have loaded matrix-js-sdk",
  );
});

Deno.test("the outpost starts without loading secretlint: the publish gate loads it on its first scan", async () => {
  const started = await loadedScripts({});
  assert.ok(started.some((u) => u.endsWith("/core/publish/gate.ts")), "the gate is wired");
  assert.ok(started.some((u) => /\/core\/publish\/secret_scan\.ts$/.test(u)));
  assert.deepEqual(
    started.filter((u) => /@secretlint|core\/publish\/secretlint_rules\.ts/.test(u)),
    [],
  );
});
