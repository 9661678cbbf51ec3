// Issue 14 through the real `agent -p` (release permission flags) and a scripted fake model:
// the model's shell commands cannot reach the keys, the agent home, another workspace, the
// agent's process or the network; ordinary work succeeds; nothing on disk holds a key after the
// run; a memory_dir placed inside the workdir is masked; a machine without bubblewrap refuses
// shell calls (auto) or says it ran them unsandboxed (off); and a sandboxed command dies with the
// agent when the agent is killed.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { agentArgs, childEnv, headlessSetup, runAgent } from "./agent_process.ts";
import { peerTest, probes } from "../peers.ts";
import {
  assertNoCanaryUnder,
  attackReply,
  attacks,
  CANARY_ENV,
  checkAttacks,
  checkNoEscape,
  checkProjectUntouched,
  plantProject,
  plantSecrets,
  toolResultsById,
} from "./sandbox_attack.ts";

async function setup() {
  const t = await headlessSetup();
  const targets = {
    agentHome: `${t.home}/.agent`,
    home: t.home,
    other: `${t.home}/other-workspace`,
    port: Number(new URL(t.fake.url).port),
  };
  await plantSecrets(targets);
  return Object.assign(t, { targets });
}

peerTest(
  "headless: the issue-14 attacks come back empty and ordinary work succeeds",
  probes.bubblewrap,
  async () => {
    await using t = await setup();
    await plantProject(t.work);
    const list = attacks(t.targets);
    t.fake.enqueue(attackReply(list), reply().text("Done."));
    const r = await runAgent([
      "-p",
      "--workdir",
      t.work,
      "--output-format",
      "json",
      "--output",
      `${t.home}/.agent/report.md`,
      "--",
      "look around",
    ], { ...t.env, ...CANARY_ENV });
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.equal(json.sandbox, "auto (bubblewrap, network off)");
    checkAttacks(list, toolResultsById(t.fake.requests.at(-1)!.body));
    await checkNoEscape(t.targets);
    await checkProjectUntouched(t.work);
    const report = await Deno.readTextFile(`${t.home}/.agent/report.md`);
    assert.match(report, /\*\*Sandbox:\*\* auto \(bubblewrap, network off\)/);
    // Sessions, the report, memory: nothing under the home holds a key, but the settings file.
    await assertNoCanaryUnder(t.home, [`${t.targets.agentHome}/settings.toml`]);
    t.fake.assertNoViolations();
  },
);

Deno.test("headless: a workdir that holds the memory root is refused before any request", async () => {
  // The memory root defaults to the agent home. An operator can put it anywhere (memory_dir,
  // global only); a workdir holding it would hand every note to the model, so the workdir rule
  // (core/workdir_policy.ts) refuses the run. The sandbox masks it too, should one get through.
  await using t = await setup();
  const memory = `${t.work}/team-memory`;
  await Deno.mkdir(memory);
  await Deno.writeTextFile(`${memory}/secret.md`, "# note\n");
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--", "look at the memory"],
    { ...t.env, AGENT_MEMORY_DIR: memory },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr.trim(),
    `agent: workdir ${t.work} holds the memory root (${memory}); choose a project folder of its own`,
  );
  assert.equal(t.fake.allRequests.length, 0, "nothing reached the model server");
});

/** A bin directory holding only `sh`: a machine where bwrap is not installed. */
async function pathWithoutBwrap(home: string): Promise<string> {
  const bin = `${home}/bin-without-bwrap`;
  await Deno.mkdir(bin);
  await Deno.symlink("/bin/sh", `${bin}/sh`);
  return bin;
}

/**
 * `agent -p` on a machine without bwrap, its model asking for one shell call (id c1,
 * `echo ran > ran.txt`) and then answering `finalText`; JSON output, the report at
 * <home>/r.md.
 */
async function runShellWithoutBwrap(
  t: Awaited<ReturnType<typeof setup>>,
  finalText: string,
  env: Record<string, string> = {},
) {
  t.fake.enqueue(reply().tool("shell", { command: "echo ran > ran.txt" }, { id: "c1" }));
  t.fake.enqueue(reply().text(finalText));
  return await runAgent(
    [
      "-p",
      "--workdir",
      t.work,
      "--output-format",
      "json",
      "--output",
      `${t.home}/r.md`,
      "--",
      "run it",
    ],
    { ...t.env, PATH: await pathWithoutBwrap(t.home), ...env },
  );
}

Deno.test("headless without bwrap: auto refuses the shell call with the install hint, and the run ends in error", async () => {
  await using t = await setup();
  const r = await runShellWithoutBwrap(t, "Could not run it.");
  const result = toolResultsById(t.fake.requests.at(-1)!.body).get("c1") ?? "";
  assert.equal(result.split("\n").length, 1, "one line");
  assert.match(result, /^sandbox: bubblewrap is not installed \(no bwrap on PATH\): install it/);
  assert.match(result, /apt-get install bubblewrap/);
  assert.match(
    result,
    /sandbox = "off" in .*\/\.agent\/settings\.toml \(or AGENT_SANDBOX_MODE=off\)/,
  );
  await assert.rejects(Deno.stat(`${t.work}/ran.txt`), Deno.errors.NotFound);
  // The model answered, but nothing it meant to run ran: never ok (issue 33).
  assert.equal(r.code, 1, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.outcome, "error");
  assert.equal(json.exit_code, 1);
  assert.equal(json.done_reason, "error");
  assert.equal(json.final_text, "Could not run it.");
  assert.equal(json.error, `a shell call was refused, so the run did not do its work: ${result}`);
  assert.equal(json.sandbox, "auto: unavailable, shell calls refused");
  const report = await Deno.readTextFile(`${t.home}/r.md`);
  assert.ok(report.includes(`**Error:** ${json.error}`), report);
});

Deno.test("headless without bwrap: off runs the command and the report says so", async () => {
  await using t = await setup();
  const r = await runShellWithoutBwrap(t, "Ran it.", { AGENT_SANDBOX_MODE: "off" });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await Deno.readTextFile(`${t.work}/ran.txt`), "ran\n");
  assert.match(JSON.parse(r.stdout).sandbox, /^off \(commands run unsandboxed/);
  assert.match(
    await Deno.readTextFile(`${t.home}/r.md`),
    /\*\*Sandbox:\*\* \*\*off \(commands run unsandboxed, as the agent's user\)\*\*/,
  );
});

Deno.test("headless: sandbox = bubblewrap without bwrap stops before the first turn", async () => {
  await using t = await setup();
  const r = await runAgent(
    ["-p", "--sandbox", "bubblewrap", "--workdir", t.work, "--output-format", "json", "--", "x"],
    { ...t.env, PATH: await pathWithoutBwrap(t.home) },
  );
  assert.equal(r.code, 1);
  assert.match(JSON.parse(r.stdout).error, /sandbox: bubblewrap is not installed/);
  assert.equal(t.fake.requests.length, 0);
});

/** Host pids of live processes whose command line holds `token` (zombies do not count). */
async function livingWith(token: string): Promise<number[]> {
  const found: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline.includes(token) && state !== "Z") found.push(Number(entry.name));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return found;
}

async function commOf(pid: number): Promise<string> {
  try {
    return (await Deno.readTextFile(`/proc/${pid}/comm`)).trim();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "";
    throw err;
  }
}

/** Polls `ok` until it holds or 10 s pass (the assertion after it then reports the state). */
async function until(ok: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await ok()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

peerTest(
  "kill -9 of the agent mid shell call takes the sandboxed command with it",
  probes.bubblewrap,
  async () => {
    await using t = await setup();
    const token = `4242.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
    const fifo = `${t.work}/started.fifo`;
    assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
    t.fake.enqueue(
      reply().tool("shell", { command: `echo go > started.fifo; exec sleep ${token}` }),
    );
    const agent = new Deno.Command(Deno.execPath(), {
      args: [...await agentArgs(), "-p", "--workdir", t.work, "--", "wait"],
      env: childEnv(t.env),
      clearEnv: true,
      cwd: t.home,
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      // Opening the FIFO for reading completes once the sandboxed command opened it to write.
      const reader = await Deno.open(fifo, { read: true });
      await reader.read(new Uint8Array(8));
      reader.close();
      // Between the write and the exec: wait (bounded) for the sleep to exist (the token is in
      // its command line and in bwrap's).
      const sleeping = async () =>
        (await Promise.all((await livingWith(token)).map(commOf)))
          .includes("sleep");
      await until(sleeping);
      assert.ok(await sleeping(), "the command runs");
      agent.kill("SIGKILL");
      await agent.status;
      // The kernel delivers bwrap's parent-death signal and tears the pid namespace down as
      // the agent dies; wait for that (bounded), not for a fixed time.
      await until(async () => (await livingWith(token)).length === 0);
      assert.deepEqual(await livingWith(token), [], "the sandboxed command outlived the agent");
    } finally {
      for (const pid of await livingWith(token)) Deno.kill(pid, "SIGKILL");
    }
  },
);
