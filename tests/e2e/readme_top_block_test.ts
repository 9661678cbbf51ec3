// The README's top block, word for word, on a fresh machine (issue 33): a new HOME (so a
// new Deno module cache under it), no DENO_DIR, and a PATH without ~/.local/bin or any
// directory holding `deno`, `agent` or `agent-outpost` — only Node.js and npm. Its first
// command must start the outpost, fetching what it needs on first use with progress, and the
// outpost must answer /healthz; a second start must be offline. Its second command is the test
// suite: running the whole suite inside itself would recurse, so the test checks the line
// names deno.json's `test` task and runs that task's first step (the cache fill) the same way.
// npm's own cache is shared with the machine (npm_config_cache), so npx does not download the
// `deno` package again; the TLS and proxy settings of the machine pass through, as they would
// for a user behind the same network.

import assert from "node:assert/strict";
import { commandOnPath, peerTest } from "../peers.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The commands of the README's first ```sh block, comments and blank lines dropped. */
export function readmeTopBlock(readme: string): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error("README.md has no ```sh block");
  return block[1]!.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** The machine's network settings a user's shell would carry (TLS roots, proxies). */
const NETWORK_ENV = [
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "SSL_CERT_FILE",
  "NODE_EXTRA_CA_CERTS",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
];

/** PATH without ~/.local/bin and without any directory that already holds our programs. */
function freshPath(): string {
  const home = Deno.env.get("HOME") ?? "/nonexistent";
  const hasProgram = (dir: string) =>
    ["deno", "agent", "agent-outpost"].some((name) => {
      try {
        return Deno.statSync(`${dir}/${name}`).isFile;
      } catch {
        return false; // not in this directory
      }
    });
  return (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")
    .filter((dir) => dir !== "" && dir !== `${home}/.local/bin` && !hasProgram(dir))
    .join(":");
}

function freshEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    PATH: freshPath(),
    npm_config_cache: Deno.env.get("npm_config_cache") ??
      `${Deno.env.get("HOME")}/.npm`,
    npm_config_update_notifier: "false",
    AGENT_OUTPOST_PORT: "0", // the README's 7317 may be taken on a shared machine
  };
  for (const name of NETWORK_ENV) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  // Deno reads its extra roots from DENO_CERT only; the machine's SSL_CERT_FILE is the same file.
  if (!env.DENO_CERT && env.SSL_CERT_FILE) env.DENO_CERT = env.SSL_CERT_FILE;
  return env;
}

interface Started {
  url: string;
  stderr: Promise<string>;
  stop(): Promise<void>;
}

/** Runs one README line under sh in its own session, until its outpost prints its URL. */
async function startLine(line: string, home: string): Promise<Started> {
  console.error(`running the README line: ${line}`);
  const child = new Deno.Command("setsid", {
    args: ["sh", "-c", line],
    cwd: ROOT,
    clearEnv: true,
    env: freshEnv(home),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const stop = async () => {
    try {
      Deno.kill(-child.pid, "SIGTERM"); // the whole session: sh, npx, deno task, the outpost
    } catch { /* already gone */ }
    await child.status;
  };
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`\`${line}\` ended before listening:\n${seen}\n${await stderr}`);
      seen += value;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(seen);
      if (m) {
        reader.releaseLock();
        void child.stdout.cancel().catch(() => {});
        return { url: m[1]!, stderr, stop };
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Text without ANSI colours (Deno colours its `Download` lines). */
function plain(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

async function runLine(line: string, home: string) {
  const out = await new Deno.Command("sh", {
    args: ["-c", line],
    cwd: ROOT,
    clearEnv: true,
    env: freshEnv(home),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the README's top block is two commands: the outpost, then the tests", async () => {
  const lines = readmeTopBlock(await Deno.readTextFile(`${ROOT}/README.md`));
  assert.deepEqual(lines, [
    `npx -y deno@${Deno.version.deno} task outpost`,
    `npx -y deno@${Deno.version.deno} task test`,
  ]);
});

peerTest(
  "the README's top block works verbatim with a fresh HOME, a fresh Deno cache and no ~/.local/bin",
  () => commandOnPath("npx") && commandOnPath("setsid") ? null : "npx (Node.js, npm) not installed",
  async () => {
    const [outpostLine, testLine] = readmeTopBlock(await Deno.readTextFile(`${ROOT}/README.md`));
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-readme-" }));
    try {
      // First start: fetches the modules, with progress on stderr, then serves.
      const first = await startLine(outpostLine!, home);
      try {
        const health = await fetch(new URL("healthz", first.url));
        assert.equal(health.status, 200);
        assert.deepEqual(await health.json(), { ok: true });
      } finally {
        await first.stop();
      }
      const firstLog = plain(await first.stderr);
      assert.match(
        firstLog,
        /first run: fetching the modules deno\.lock pins into .*\.cache\/deno/,
      );
      assert.match(firstLog, /Download .*registry/, "Deno's download lines are the progress");
      assert.ok(!firstLog.includes("agent-outpost: command not found"), firstLog);

      // Second start: the cache is stamped full, nothing is fetched.
      const second = await startLine(outpostLine!, home);
      const health = await fetch(new URL("healthz", second.url));
      assert.equal(health.status, 200);
      await health.body?.cancel();
      await second.stop();
      const secondLog = plain(await second.stderr);
      assert.ok(!/first run|Download /.test(secondLog), secondLog);

      // The test line names the test task; its first step (the cache fill) runs the same way.
      const task = /^(npx -y deno@[\d.]+) task test$/.exec(testLine!);
      assert.ok(task, testLine);
      const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
      const firstStep = String(config.tasks.test).split("&&")[0]!.trim();
      assert.match(firstStep, /^deno cache --frozen /);
      const step = await runLine(`${task[1]} ${firstStep.replace(/^deno /, "")}`, home);
      assert.equal(step.code, 0, step.stderr);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);
