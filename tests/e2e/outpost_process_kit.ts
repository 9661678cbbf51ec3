// A real `agent-outpost` process for end-to-end tests: started like `deno task outpost`
// (the permission flags of scripts/permissions.ts) with --port 0 in an isolated AGENT_HOME.

import { denoRunArgs } from "../../scripts/permissions.ts";
import { childEnv, ROOT, tempHome } from "./agent_process.ts";
import { readListeningUrl } from "./listening_kit.ts";
import { type FakeModelServer, startFakeModelServer } from "../fakes/model_server.ts";

export interface Outpost {
  url: string;
  child: Deno.ChildProcess;
  stderr: Promise<string>;
}

/** The outpost as `deno task outpost` starts it, on --port 0, in `home`; output piped. */
function spawnOutpost(home: string, env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [...denoRunArgs("agent-outpost", ROOT), "--port", "0"],
    env: childEnv({ home, ...env }),
    clearEnv: true,
    cwd: home,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

export async function startOutpost(home: string, env: Record<string, string>): Promise<Outpost> {
  const child = spawnOutpost(home, env);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { url, seen } = await readListeningUrl(reader, LOOPBACK_LISTENING);
  if (url === null) throw new Error(`outpost exited before listening: ${seen}\n${await stderr}`);
  reader.releaseLock();
  void child.stdout.cancel().catch(() => {});
  return { url, child, stderr };
}

/** The dev outpost's line: it listens on the loopback only. */
const LOOPBACK_LISTENING = { pattern: /listening on (http:\/\/127\.0\.0\.1:\d+\/)/ };

/**
 * Starts an outpost that is meant to refuse to start, and stops it as soon as it says it
 * listens instead (else it would serve forever). Its stdout, stderr and exit code.
 */
export async function startRefusedOutpost(
  home: string,
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string; code: number }> {
  const child = spawnOutpost(home, env);
  const stderr = new Response(child.stderr).text();
  const stdout = await new Response(child.stdout.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        if (new TextDecoder().decode(chunk).includes("listening on")) child.kill("SIGKILL");
      },
    }),
  )).text();
  const { code } = await child.status;
  return { stdout, stderr: await stderr, code };
}

export async function stop(o: Outpost): Promise<{ code: number; stderr: string }> {
  o.child.kill("SIGTERM");
  const { code } = await o.child.status;
  return { code, stderr: await o.stderr };
}

export async function cli(
  home: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...denoRunArgs("agent-outpost", ROOT), ...args],
    env: childEnv({ home }),
    clearEnv: true,
    cwd: home,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Reads the outpost's event stream (a signal, not a timer) until a `run` event of `runId`
 * satisfies `done`; returns that event's status. Only whole lines are parsed.
 */
async function waitForRunEvent(
  url: string,
  runId: number,
  done: (status: string) => boolean,
): Promise<string> {
  const res = await fetch(`${url}api/events`, { headers: { "Last-Event-ID": "0" } });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let partial = "";
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error("event stream ended");
      const lines = (partial + value).split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith("data: ")) continue;
        const data = JSON.parse(line.slice(6));
        if (data.type === "run" && data.run_id === runId && done(data.status)) return data.status;
      }
    }
  } finally {
    await reader.cancel();
  }
}

/** Waits until run `runId` reports `status`. */
export async function waitForRun(url: string, runId: number, status: string): Promise<void> {
  await waitForRunEvent(url, runId, (s) => s === status);
}

/**
 * Waits until run `runId` leaves queued/running; returns the status it ended in, so a test
 * can assert it rather than wait forever for one that never comes.
 */
export function waitForRunEnd(url: string, runId: number): Promise<string> {
  return waitForRunEvent(url, runId, (s) => s !== "queued" && s !== "running");
}

/**
 * The dashboard API as a page calls it: the CSRF cookie and header (`csrf = false` leaves the
 * header out, to see the refusal) and a JSON body; answers status, parsed JSON and raw text.
 */
export async function dashboardApi(url: string) {
  const first = await fetch(`${url}api/jobs`);
  const token = /outpost_csrf=([^;]+)/.exec(first.headers.get("set-cookie")!)![1]!;
  await first.body?.cancel();
  return async (method: string, path: string, body?: unknown, csrf = true) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        Cookie: `outpost_csrf=${token}`,
        ...(csrf ? { "X-CSRF-Token": token } : {}),
        "Content-Type": "application/json",
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, text };
  };
}

export type DashboardApi = Awaited<ReturnType<typeof dashboardApi>>;

/** The whole product on a fresh home: the fake model server and a real outpost pointed at it. */
export interface Stack {
  home: string;
  fake: FakeModelServer;
  outpost: Outpost;
  api: DashboardApi;
  /** Stops the outpost and the fake, removes the home, and asserts the outpost exited 0. */
  close(): Promise<void>;
}

/**
 * Starts the stack the full-stack tests share: `served-model` with a 32k window, the outpost
 * on chat_completions with reflection off (so a run sends only its own requests).
 * `settingsToml`, when given, is written as the agent home's global settings first.
 */
export async function startStack(
  settingsToml?: string,
  env: Record<string, string> = {},
): Promise<Stack> {
  const home = await tempHome();
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
  });
  if (settingsToml !== undefined) {
    await Deno.mkdir(`${home}/.agent`, { recursive: true });
    await Deno.writeTextFile(`${home}/.agent/settings.toml`, settingsToml, { mode: 0o600 });
  }
  const outpost = await startOutpost(home, {
    AGENT_BASE_URL: fake.url,
    AGENT_PROVIDER: "chat_completions",
    AGENT_MEMORY_REFLECT: "0",
    ...env,
  });
  let api: DashboardApi;
  try {
    api = await dashboardApi(outpost.url);
  } catch (err) {
    await stop(outpost);
    await fake.close();
    throw err;
  }
  return {
    home,
    fake,
    outpost,
    api,
    close: () => closeStack({ home, fake, outpost }),
  };
}

/**
 * Stops the outpost and the model server, removes the home, and then fails when the outpost
 * did not exit 0: Stack.close, for the tests that start their outpost themselves.
 */
export async function closeStack(
  parts: { home: string; fake: FakeModelServer; outpost: Outpost },
): Promise<void> {
  const ended = await stop(parts.outpost);
  await parts.fake.close();
  await Deno.remove(parts.home, { recursive: true });
  if (ended.code !== 0) throw new Error(`the outpost exited ${ended.code}: ${ended.stderr}`);
}
