// Starts the real model-server peers for the end-to-end suite: llama.cpp's llama-server
// serving scripts/peers' tiny scripted models, and the LiteLLM proxy with the scripted
// providers of scripts/peers/litellm_handler.py. Binaries and models come from the peer cache
// (scripts/peers/*.sh, run once per CI run by .ci/run). The llama-servers are started once for
// the suite (sharedLlama) and stopped by its last test (stopPeers), or killed at unload when a
// filter left that test out. The suite is one module, tests/e2e/peers_test.ts, because Deno
// runs each test module in its own isolate: two files could share nothing held in memory, and
// sharing across processes (pid files, a lock, a stop owned by no file) would cost more than the
// ~1 s of starts it saves. One module also keeps the prompt caches the direct llama-server
// cases warmed for the same servers behind LiteLLM. Readiness is each server's own "listening"
// log line, not a timer.
//
// Measured on the 2-core CI machine (2026-11-26, after the builds):
//   llama-server start, one tiny model: 80-100 ms; five at once: 0.8-1.6 s
//   LiteLLM proxy start: 6.3 s
//   tests/e2e/peers_test.ts (21 scenarios, 6 llama-servers, one proxy): 42-97 s, median 64 s,
//     in six runs interleaved with the two-file layout it replaced (same scenarios), load
//     average 0.8-3.1 from other jobs; the 97 s run had another worker's benchmark taking a
//     whole core. Against the two files in the same round, a ratio of 0.58-1.43, median 0.75.
//     The two files took 54-113 s (median 69 s).
//   Of that, the 429 scenario is 7 s (1 + 2 + 4 s of the agent's real backoff; its two wires
//   now wait at once, they took 14 s one after the other), the LiteLLM small-window one 1-7 s,
//   llama-server's one-slot small-window compaction 3-14 s, U+2028 (peer-sep, cold) 4-13 s.
//   A fresh workspace path per run (prompt reprocessed each time) made the old llama file 65 s
//   and the LiteLLM one 102 s.

import { litellmPath, llamaPaths } from "../peers.ts";
import { ROOT, runAgent, tempHome } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { freePort } from "./listening_kit.ts";

export interface Peer {
  /** Base URL ending in /v1. */
  url: string;
  port: number;
  /** Everything the server logged so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** Peer processes still running: killed when the test process unloads, whatever ran. */
const live = new Set<Deno.ChildProcess>();
globalThis.addEventListener("unload", () => {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
});

/** Spawns `cmd` and resolves once its output matches `ready`; rejects if it exits first. */
async function spawnUntil(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; ready: RegExp; port: number },
): Promise<Peer> {
  const child = new Deno.Command(cmd, {
    args,
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    env: { ...(opts.env ?? {}) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  live.add(child);
  let text = "";
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const piece of stream.pipeThrough(new TextDecoderStream())) {
      text += piece;
      if (text.length > 200_000) text = text.slice(-100_000);
      if (opts.ready.test(text)) markReady();
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const exited = child.status.then((s) => {
    throw new Error(`${cmd} exited (${s.code}) before it was ready:\n${text.slice(-3000)}`);
  });
  await Promise.race([ready, exited]);
  exited.catch(() => {/* stopped on purpose later */});
  return {
    url: `http://127.0.0.1:${opts.port}/v1`,
    port: opts.port,
    log: () => text,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      live.delete(child);
      await drained;
    },
  };
}

/**
 * llama-server serving one of the scripted models (peer-text, peer-tool, peer-tool2, peer-think,
 * peer-sep), under its own name or `alias` (a second server of the same model behind LiteLLM
 * needs a name of its own).
 */
export function startLlama(
  model: string,
  opts: { ctx?: number; alias?: string } = {},
): Promise<Peer> {
  const { server, models } = llamaPaths();
  const port = freePort();
  return spawnUntil(server, [
    "-m",
    `${models}/${model}.gguf`,
    "--alias",
    opts.alias ?? model,
    "--jinja",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "-c",
    String(opts.ctx ?? 32768),
    // Two slots keep each wire's prompt cached (the wires render the same conversation
    // differently, and one slot would reprocess ~9k tokens at every switch). A pinned small
    // window stays one slot, so meta.n_ctx is the window a request really gets.
    "-np",
    opts.ctx ? "1" : "2",
    // The agent's own prompt is ~9k tokens in this byte-level vocabulary: large batches and
    // both cores process it 4-5 times faster than the defaults (7 s instead of 38 s cold).
    "-t",
    "2",
    "-b",
    "4096",
    "-ub",
    "2048",
    "--no-webui",
  ], { ready: /listening on http/, port });
}

/** Peers started for the suite, in start order; stopPeers() stops them last-first. */
const started: Peer[] = [];
const llamas = new Map<string, Promise<Peer>>();

/** Registers `peer` to be stopped by stopPeers() (proxies before the servers behind them). */
export function stopAtEnd<T extends Peer>(peer: T): T {
  started.push(peer);
  return peer;
}

/**
 * The suite's llama-server for `model` (and window, and alias): started on first use, then
 * shared by every test of the process, so each model is loaded once and its prompt cache
 * stays warm for the next test, direct or behind LiteLLM.
 */
export function sharedLlama(model: string, opts: { ctx?: number; alias?: string } = {}) {
  const key = `${model} ${opts.ctx ?? ""} ${opts.alias ?? ""}`;
  let peer = llamas.get(key);
  if (!peer) {
    peer = startLlama(model, opts).then(stopAtEnd);
    llamas.set(key, peer);
  }
  return peer;
}

/** Stops every peer started for the suite (the last test of tests/e2e/peers_test.ts). */
export async function stopPeers(): Promise<void> {
  await Promise.allSettled(llamas.values());
  llamas.clear();
  while (started.length > 0) await started.pop()!.stop();
}

export const LITELLM_KEY = "sk-peer-test";

/** A Peer that also records the requests it passed on ("POST /v1/responses", …). */
export interface RecordedPeer extends Peer {
  /** Requests seen since the last take(), in order; take() empties the list. */
  take(): string[];
  /** Like take(), with each answer's status: "POST /v1/responses 400". */
  takeAnswered(): string[];
}

/**
 * A pass-through in front of `peer` that records each request's method and path (and the
 * status it got), so a test can see which upstream endpoint LiteLLM chose and what the peer
 * answered it. Bodies stream through unchanged.
 */
export function recordPaths(peer: Peer): RecordedPeer {
  const port = freePort();
  const upstream = peer.url.replace(/\/v1$/, "");
  let seen: { request: string; status?: number }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const entry: { request: string; status?: number } = {
      request: `${req.method} ${url.pathname}`,
    };
    seen.push(entry);
    const headers = new Headers(req.headers);
    headers.delete("host");
    const res = await fetch(upstream + url.pathname + url.search, {
      method: req.method,
      headers,
      ...(req.body ? { body: req.body } : {}),
    });
    entry.status = res.status;
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
  const drain = () => {
    const out = seen;
    seen = [];
    return out;
  };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    log: () => peer.log(),
    take: () => drain().map((e) => e.request),
    takeAnswered: () => drain().map((e) => `${e.request} ${e.status ?? "(no answer)"}`),
    async stop() {
      await server.shutdown();
    },
  };
}

/** LiteLLM bridges to llama-server peers: model name → peer, or a provider and a peer. */
export type Bridges = Record<string, Peer | { provider: "openai" | "hosted_vllm"; peer: Peer }>;

/**
 * The LiteLLM proxy on a fresh port, with the scripted providers, mock models, and bridges
 * to the given llama-server peers (model name → peer, `openai/` unless a provider is given;
 * the upstream model is the name without a `vllm-` prefix).
 */
export async function startLitellm(bridges: Bridges = {}): Promise<Peer> {
  const dir = await tempHome();
  await Deno.copyFile(`${ROOT}/scripts/peers/litellm_handler.py`, `${dir}/litellm_handler.py`);
  const bridgeModels = Object.entries(bridges).map(([name, bridge]) => {
    const { provider, peer } = "peer" in bridge ? bridge : { provider: "openai", peer: bridge };
    return `
  - model_name: ${name}
    litellm_params:
      model: ${provider}/${name.replace(/^vllm-/, "")}
      api_base: ${peer.url}
      api_key: sk-none`;
  }).join("");
  await Deno.writeTextFile(
    `${dir}/config.yaml`,
    `model_list:
  - model_name: mock-text
    litellm_params:
      model: openai/mock-text
      api_key: sk-none
      api_base: http://127.0.0.1:9/v1
      mock_response: "Hello from the LiteLLM mock."
  - model_name: mock-ratelimit
    litellm_params:
      model: openai/mock-ratelimit
      api_key: sk-none
      api_base: http://127.0.0.1:9/v1
      mock_response: "litellm.RateLimitError"
  - model_name: script-tool
    litellm_params:
      model: scripted/script-tool
  - model_name: script-tool2
    litellm_params:
      model: scriptedparallel/script-tool2
  - model_name: script-text
    litellm_params:
      model: scriptedtext/script-text${bridgeModels}
litellm_settings:
  custom_provider_map:
    - {"provider": "scripted", "custom_handler": litellm_handler.scripted_tool}
    - {"provider": "scriptedtext", "custom_handler": litellm_handler.scripted_text}
    - {"provider": "scriptedparallel", "custom_handler": litellm_handler.scripted_parallel}
  num_retries: 0
general_settings:
  master_key: ${LITELLM_KEY}
`,
  );
  const port = freePort();
  const peer = await spawnUntil(
    litellmPath(),
    ["--config", "config.yaml", "--host", "127.0.0.1", "--port", String(port)],
    {
      cwd: dir,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: dir,
        // Offline: the cost map ships with the package.
        LITELLM_LOCAL_MODEL_COST_MAP: "True",
        PYTHONDONTWRITEBYTECODE: "1",
      },
      ready: /Uvicorn running on/,
      port,
    },
  );
  return {
    ...peer,
    async stop() {
      await peer.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

export interface PeerRun {
  code: number;
  stderr: string;
  json: HeadlessResult;
  report: string;
  /** The session journal (JSON lines): every message of the run, tool results included. */
  journal: string;
}

/**
 * The workspace of every run in this process: one path, emptied and refilled per run. The
 * workspace path is in the system prompt, ahead of the ~8k tokens of tool schemas, so a fresh
 * path per run made llama-server reprocess the whole prompt each time; one path lets its
 * slots reuse the cached prefix. Runs in a file are sequential, so they never share it at once.
 */
let sharedWork: string | undefined;
async function freshWorkdir(): Promise<string> {
  if (sharedWork === undefined) {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-peer-work-" }));
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    sharedWork = dir;
  }
  await Deno.remove(sharedWork, { recursive: true });
  await Deno.mkdir(sharedWork);
  return sharedWork;
}

/** `agent -p --output-format json` against a peer, in a fresh home with hello.txt/other.txt. */
export async function runAgainst(
  peer: Pick<Peer, "url">,
  opts: {
    provider: "chat_completions" | "messages";
    prompt: string;
    model?: string;
    key?: string;
    env?: Record<string, string>;
    /** Files for the workspace (default: hello.txt and other.txt). */
    files?: Record<string, string>;
    /** A second prompt, run with --resume in the same session after the first succeeds. */
    then?: string;
    /** The global settings.toml, e.g. `[thinking]\ntype = "disabled"\n`. */
    settingsToml?: string;
    /** A workspace of its own (under the home) rather than the shared path: for runs made at
     * the same time as another, which would empty the shared one under it. */
    ownWorkdir?: boolean;
  },
): Promise<PeerRun> {
  const home = await tempHome();
  try {
    const work = opts.ownWorkdir ? `${home}/work` : await freshWorkdir();
    if (opts.ownWorkdir) await Deno.mkdir(work);
    if (opts.settingsToml !== undefined) {
      await Deno.mkdir(`${home}/.agent`, { recursive: true });
      await Deno.writeTextFile(`${home}/.agent/settings.toml`, opts.settingsToml);
    }
    const files = opts.files ?? { "hello.txt": "hello peer\n", "other.txt": "other peer\n" };
    for (const [name, body] of Object.entries(files)) {
      await Deno.writeTextFile(`${work}/${name}`, body);
    }
    const env = {
      home,
      // The Messages wire trims the /v1 itself (spec 4.3).
      AGENT_BASE_URL: peer.url,
      AGENT_PROVIDER: opts.provider,
      AGENT_API_KEY: opts.key ?? LITELLM_KEY,
      AGENT_MEMORY_REFLECT: "0",
      ...(opts.model ? { AGENT_MODEL: opts.model } : {}),
      ...(opts.env ?? {}),
    };
    const once = async (prompt: string, resume?: string): Promise<PeerRun> => {
      const r = await runAgent([
        "-p",
        "--workdir",
        work,
        ...(resume ? ["--resume", resume] : []),
        "--output-format",
        "json",
        "--output",
        `${home}/r.md`,
        "--",
        prompt,
      ], env);
      let json: HeadlessResult;
      try {
        json = JSON.parse(r.stdout) as HeadlessResult;
      } catch {
        throw new Error(`no JSON result (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
      }
      const report = await Deno.readTextFile(`${home}/r.md`);
      const journal = json.session_id
        ? await Deno.readTextFile(`${home}/.agent/sessions/${json.session_id}.jsonl`)
        : "";
      return { code: r.code, stderr: r.stderr, json, report, journal };
    };
    const first = await once(opts.prompt);
    if (opts.then === undefined) return first;
    if (first.code !== 0 || !first.json.session_id) {
      throw new Error(`the first run failed: ${JSON.stringify(first.json)}`);
    }
    return await once(opts.then, first.json.session_id);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}
