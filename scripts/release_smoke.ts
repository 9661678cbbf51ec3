// Runs a target's release binaries on a machine of that target (.github/workflows/release.yml,
// one runner per OS and architecture): `agent --version` names the version, a headless turn
// against the fake model server ends ok with the scripted answer, and `agent-outpost` answers
// /healthz. Exits 1 with one line per failed check.
//   deno run -A scripts/release_smoke.ts DIR VERSION     (DIR holds agent and agent-outpost)

import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
import { readListeningUrl } from "../tests/e2e/listening_kit.ts";

const decoder = new TextDecoder();

async function run(cmd: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" })
    .output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** `agent --version` prints `agent VERSION`. */
export async function checkVersion(dir: string, version: string): Promise<string | null> {
  const r = await run(`${dir}/agent`, ["--version"], {});
  return r.code === 0 && r.stdout.trim() === `agent ${version}`
    ? null
    : `agent --version: exit ${r.code}, printed ${JSON.stringify(r.stdout.trim())} ` +
      `(expected "agent ${version}") ${r.stderr.trim()}`;
}

/** One headless turn against the fake model server ends ok with the scripted answer. */
export async function checkHeadlessTurn(dir: string, home: string): Promise<string | null> {
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 8192 }],
  });
  try {
    fake.enqueue(reply().text("release smoke ok").usage(20, 3));
    const r = await run(`${dir}/agent`, ["-p", "--output-format", "json", "--", "say ok"], {
      HOME: home,
      AGENT_BASE_URL: fake.url,
      AGENT_PROVIDER: "chat_completions",
      AGENT_MODEL: "served-model",
      AGENT_MEMORY_REFLECT: "0",
    });
    let json: { outcome?: string; final_text?: string } = {};
    try {
      json = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "");
    } catch { /* reported below */ }
    return r.code === 0 && json.outcome === "ok" && json.final_text === "release smoke ok"
      ? null
      : `agent -p: exit ${r.code}, ${r.stdout.trim() || "no JSON"} ${r.stderr.trim()}`;
  } finally {
    await fake.close();
  }
}

/** `agent-outpost --port 0` prints its URL and answers /healthz, then stops on SIGTERM. */
export async function checkOutpost(dir: string, home: string): Promise<string | null> {
  const child = new Deno.Command(`${dir}/agent-outpost`, {
    args: ["--port", "0"],
    env: { HOME: home },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let failure: string | null = null;
  try {
    const { url, seen } = await readListeningUrl(reader);
    if (url === null) {
      failure = `agent-outpost ended before listening: ${seen}`;
    } else {
      const health = await fetch(`${url}healthz`);
      const body = await health.text();
      if (health.status !== 200 || JSON.parse(body).ok !== true) {
        failure = `agent-outpost /healthz: ${health.status} ${body}`;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch { /* already ended */ }
    const { code } = await child.status;
    const log = await stderr;
    if (failure === null && code !== 0) failure = `agent-outpost exited ${code} on SIGTERM: ${log}`;
    else if (failure !== null) failure += ` ${log.trim()}`;
  }
  return failure;
}

if (import.meta.main) {
  const [dir, version] = Deno.args;
  if (!dir || !version) {
    console.error("usage: deno run -A scripts/release_smoke.ts DIR VERSION");
    Deno.exit(2);
  }
  const home = await Deno.makeTempDir({ prefix: "agent-release-smoke-" });
  const failures: string[] = [];
  try {
    for (
      const [name, check] of [
        ["--version", () => checkVersion(dir, version)],
        ["headless turn", () => checkHeadlessTurn(dir, home)],
        ["outpost /healthz", () => checkOutpost(dir, home)],
      ] as const
    ) {
      const failed = await check();
      console.error(`${failed === null ? "ok  " : "FAIL"} ${name}`);
      if (failed !== null) failures.push(failed);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
  for (const f of failures) console.error(f);
  Deno.exit(failures.length === 0 ? 0 : 1);
}
