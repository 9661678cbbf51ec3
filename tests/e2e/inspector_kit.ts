// Which modules a running program has loaded, asked through V8's inspector: the program is
// started with `--inspect=127.0.0.1:0` beside its release flags (it only observes), and
// Debugger.enable reports every script already in the isolate, npm modules included. Used to
// prove a lazy dependency stays unloaded (matrix-js-sdk in a dormant outpost, ajv in an agent
// with MCP servers, the modules a plain `agent -p` leaves for later). The agent runs as its
// launcher runs it, from its bundle: bundleModules() says which modules each chunk holds.

import { reply } from "../fakes/model_server.ts";
import { BUNDLE_DIR } from "../../scripts/bundle.ts";
import { agentArgs, childEnv, type HeadlessSetup, ROOT } from "./agent_process.ts";

/** Reads a stream until `pattern` matches what was read; the rest is drained and dropped. */
export async function readUntil(
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

/** esbuild's line before each module it puts in a chunk: `// core/agent/loop.ts`. */
const MODULE_LINE = /^\/\/ (\S+\.(?:ts|tsx|js|mjs|cjs|json|md|sql))$/gm;

/**
 * The modules in these scripts: a chunk of the agent's bundle counts as the modules it holds
 * (paths from the checkout, npm packages as paths into Deno's cache), any other script as its
 * own path (from the checkout when it is in it, else its URL).
 */
export async function bundleModules(urls: readonly string[]): Promise<string[]> {
  const modules: string[] = [];
  for (const url of urls) {
    if (url.startsWith(`file://${ROOT}/${BUNDLE_DIR}/`)) {
      const text = await Deno.readTextFile(new URL(url));
      for (const m of text.matchAll(MODULE_LINE)) modules.push(m[1]!);
    } else {
      modules.push(url.startsWith(`file://${ROOT}/`) ? url.slice(`file://${ROOT}/`.length) : url);
    }
  }
  return modules;
}

/** The inspector's address, from the `Debugger listening on ws://…` line of stderr. */
export const INSPECTOR_LINE = /Debugger listening on (ws:\/\/\S+)/;

/** Debugger.enable over the inspector socket: scriptParsed for each script, then the reply. */
export function scriptUrls(wsUrl: string): Promise<string[]> {
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

/**
 * Starts the real `agent -p -- hi` in a headless set-up (the release flags plus --inspect),
 * holds it at its first model request, and returns the scripts V8 has parsed by then. The
 * run is then let finish, and must exit 0. The caller has set up `t` (settings, MCP servers).
 */
export async function scriptsAtFirstRequest(t: HeadlessSetup): Promise<string[]> {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  t.fake.enqueue(reply().gate(opened).text("ok"));
  const [run, ...rest] = await agentArgs();
  const child = new Deno.Command(Deno.execPath(), {
    // --inspect only observes; the permission flags stay exactly those of the program.
    args: [run!, "--inspect=127.0.0.1:0", ...rest, "-p", "--workdir", t.work, "--", "hi"],
    env: childEnv(t.env),
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let urls: string[];
  try {
    const inspector = (await readUntil(child.stderr, INSPECTOR_LINE))[1]!;
    await t.fake.waitForRequests(1);
    urls = await scriptUrls(inspector);
  } finally {
    open();
  }
  const { code } = await child.status;
  if (code !== 0) throw new Error(`agent -p exited ${code}`);
  return urls;
}
