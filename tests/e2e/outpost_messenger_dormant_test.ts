// A dormant messenger never loads matrix-js-sdk (spec 5.6): the real agent-outpost, started
// with the permission flags of scripts/permissions.ts plus --inspect, is asked through V8's
// inspector which scripts it has parsed. Debugger.enable reports every script already in the
// isolate, npm modules included, so an eager import anywhere (wiring, start.ts, a static
// import of the transport) shows up as a matrix-js-sdk URL. The configured outpost is the
// control: the same check must see the SDK there, or the check itself would prove nothing.

import assert from "node:assert/strict";
import { denoRunArgs } from "../../scripts/permissions.ts";
import { childEnv, ROOT } from "./agent_process.ts";

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
  const stderr = readUntil(child.stderr, /Debugger listening on (ws:\/\/\S+)/);
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

/** Reads a stream until `pattern` matches what was read; the rest is drained and dropped. */
async function readUntil(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${seen}`);
    seen += value;
    const m = pattern.exec(seen);
    if (m) {
      void (async () => {
        while (!(await reader.read()).done) { /* drain so the child never blocks on a pipe */ }
      })().catch(() => {});
      return m;
    }
  }
}

/** Debugger.enable over the inspector socket: scriptParsed for each script, then the reply. */
function scriptUrls(wsUrl: string): Promise<string[]> {
  const urls: string[] = [];
  const ws = new WebSocket(wsUrl);
  return new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error(`inspector ${wsUrl} failed`));
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: "Debugger.enable" }));
    ws.onmessage = (e) => {
      const msg = JSON.parse(String(e.data));
      if (msg.method === "Debugger.scriptParsed" && msg.params.url) urls.push(msg.params.url);
      if (msg.id === 1) {
        ws.onclose = () => resolve(urls);
        ws.close();
      }
    };
  });
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
