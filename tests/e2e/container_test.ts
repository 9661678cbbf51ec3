// The Containerfile built and run for real: the from-source image (Deno from the `deno` npm
// package's binary, the sources, `deno run` with the flags of scripts/permissions.ts) on the
// local debootstrap base. One container lives through the whole story: a job submitted
// through the machine door reaches ok with its report on the mounted volume, every process
// runs as the non-root user, the run's shell command runs in bubblewrap inside the container
// (started with --security-opt unmask=/proc/*, so bwrap can mount its own /proc), tini reaps
// orphans, the secrets arrive at run time, SIGTERM stops the outpost cleanly, and a restart
// finds the job. A second container without that option shows the refusal the run gets.
// Needs podman (runc) and debootstrap; .ci/run installs them and sets containers.conf.

import assert from "node:assert/strict";
import { join } from "node:path";
import { type FakeModelServer, reply, startFakeModelServer } from "../fakes/model_server.ts";
import { peerTest, probes } from "../peers.ts";
import { programRunArgs } from "../../scripts/install.ts";
import {
  buildSourceImage,
  ensureBaseImage,
  ensureDenoImage,
  podman,
  step,
  waitForListening,
} from "./container_kit.ts";
import { freePort } from "./listening_kit.ts";
import { waitForRunEnd } from "./outpost_process_kit.ts";

const IMAGE = "localhost/agent-outpost:test";
const OUTPOST_UID = 10001;
/** Lets bwrap mount a fresh /proc (docs/sandbox.md, "Containers"); docs/deployment.md runs it. */
const UNMASK_PROC = ["--security-opt", "unmask=/proc/*"];
/** The orphan a sandboxed command leaves: a sleep no other process in the container runs. */
const SANDBOX_ORPHAN = "sleep 86399";

/** What the run's first tool call returned to the model: the `tool` message of model call 2. */
function firstToolResult(fake: FakeModelServer): string {
  const body = fake.requests[1]?.body as { messages?: { role: string; content: unknown }[] };
  const message = body?.messages?.find((m) => m.role === "tool");
  assert.ok(message, `no tool result in ${JSON.stringify(body?.messages)}`);
  return String(message.content);
}

/** A P-256 VAPID private key as PKCS#8 PEM, the file secret push reads. */
async function vapidPem(): Promise<string> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const b64 = btoa(String.fromCharCode(...der)).replace(/.{64}/g, "$&\n");
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

peerTest(
  "the from-source image runs a job to ok as a non-root user with its commands in bubblewrap, reaps orphans, stops on SIGTERM and keeps its history",
  probes.podman,
  async () => {
    await ensureBaseImage();
    await ensureDenoImage();
    await buildSourceImage(IMAGE);

    // Nothing secret is baked into the image.
    const inspected = JSON.parse((await podman(["image", "inspect", IMAGE])).stdout)[0];
    const config = inspected.Config;
    const baked = (config.Env as string[]).filter((e) => /^(MX_|VAPID_)/.test(e));
    assert.deepEqual(baked, [], "no Matrix or VAPID variable in the image");
    assert.equal(config.User, "outpost");
    assert.match(
      JSON.stringify(inspected.Healthcheck?.Test),
      /\/healthz/,
      "the image carries its HEALTHCHECK",
    );

    const name = `agent-outpost-test-${Deno.pid}`;
    const secret = `agent-outpost-test-vapid-${Deno.pid}`;
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-container-" }));
    const data = join(dir, "data");
    const workspaces = join(dir, "workspaces");
    const work = join(workspaces, "w1");
    await Deno.mkdir(work, { recursive: true });
    await Deno.mkdir(data);
    for (const path of [data, workspaces, work]) await Deno.chown(path, OUTPOST_UID, OUTPOST_UID);
    const matrixEnv = join(dir, "matrix.env");
    // Three of the four MX_* variables: the messenger stays dormant and says what is missing,
    // which proves the env file reached the outpost.
    await Deno.writeTextFile(
      matrixEnv,
      "MX_HOMESERVER=http://127.0.0.1:9\nMX_ROOM=!room:example.org\nMX_ALLOWLIST=@op:example.org\n",
      { mode: 0o600 },
    );
    await podman(["secret", "create", secret, "-"], {
      stdin: new TextEncoder().encode(await vapidPem()),
    });

    const fake = await startFakeModelServer({
      models: [{ id: "served-model", max_model_len: 32768 }],
    });
    const port = freePort();
    try {
      await podman([
        "run",
        "-d",
        "--name",
        name,
        "--network=host",
        "--health-interval=disable", // no systemd timers here; the check is run by hand below
        ...UNMASK_PROC,
        "-v",
        `${data}:/data`,
        "-v",
        `${workspaces}:/workspaces`,
        "--env-file",
        matrixEnv,
        "--secret",
        `${secret},target=vapid_private_key,uid=${OUTPOST_UID},mode=0400`,
        "-e",
        "VAPID_PRIVATE_KEY_FILE=/run/secrets/vapid_private_key",
        "-e",
        "AGENT_OUTPOST_HOST=127.0.0.1",
        "-e",
        `AGENT_OUTPOST_PORT=${port}`,
        "-e",
        `AGENT_BASE_URL=${fake.url}`,
        "-e",
        "AGENT_PROVIDER=chat_completions",
        "-e",
        "AGENT_MEMORY_REFLECT=0",
        IMAGE,
      ]);
      step(`started ${name}; waiting for the outpost to listen`);
      const url = await waitForListening(name, 1);
      assert.equal(url, `http://127.0.0.1:${port}/`);
      step("checking users, the healthcheck and the run-time secrets");

      // Every process in the container is the non-root user; the outpost is `deno run` with
      // exactly its launcher's arguments (the flags of scripts/permissions.ts), under tini as
      // PID 1.
      const top = (await podman(["top", name, "user", "pid", "args"])).stdout.trim().split("\n")
        .slice(1).map((l) => l.trim().split(/\s+/));
      assert.ok(top.length >= 2, JSON.stringify(top));
      for (const [user] of top) assert.equal(user, "outpost");
      const pid1 = top.find((p) => p[1] === "1")!;
      assert.equal(pid1[2], "/usr/bin/tini");
      const outpostArgs = top.find((p) => p[2] === "/usr/local/bin/deno")!.slice(2);
      assert.deepEqual(outpostArgs, [
        "/usr/local/bin/deno",
        ...programRunArgs("agent-outpost", "/opt/agent"),
        "serve",
      ]);
      assert.equal((await podman(["exec", name, "id", "-u"])).stdout.trim(), String(OUTPOST_UID));

      // The healthcheck answers healthy against the running outpost.
      assert.equal((await podman(["healthcheck", "run", name], { allowFail: true })).code, 0);

      // Secrets arrived at run time: the push key from the file secret, the env file's MX_*.
      const push = await (await fetch(`${url}api/push/status`)).json();
      assert.equal(push.state, "ok", JSON.stringify(push));
      const messenger = await (await fetch(`${url}api/messenger/status`)).json();
      assert.deepEqual(messenger.missing, ["MX_TOKEN"]);

      // A job through the machine door. Its shell command runs in bubblewrap: it records what
      // PID 1 is and which processes it can see (not tini, not the outpost), and leaves an
      // orphan behind that must die with the sandbox's PID namespace.
      step("a job through the machine door, its shell command in bubblewrap");
      const token = (await podman(["exec", name, "agent-outpost", "token", "create", "ci"])).stdout
        .trim();
      const sandboxedCommand = "tr '\\0' ' ' < /proc/1/cmdline > pid1.txt; " +
        `sh -c 'exec ${SANDBOX_ORPHAN}' </dev/null >/dev/null 2>&1 & ` +
        "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done > procs.txt";
      fake.enqueue(reply().tool("shell", { command: sandboxedCommand }));
      fake.enqueue(reply().text("Looked around the sandbox.").usage(40, 6));
      const door = (path: string, init: RequestInit = {}) =>
        fetch(`${url}${path}`, {
          ...init,
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        });
      const submitted = await door("api/v1/jobs", {
        method: "POST",
        body: JSON.stringify({ prompt: "look around", workdir: "/workspaces/w1" }),
      });
      assert.equal(submitted.status, 202, await submitted.clone().text());
      const { job_id: jobId, run_id: runId } = await submitted.json();
      assert.equal(await waitForRunEnd(url, runId), "ok");
      const status = await (await door(`api/v1/jobs/${jobId}/runs/${runId}`)).json();
      assert.equal(status.status, "ok");
      assert.equal(status.exit_code, 0);
      assert.match(firstToolResult(fake), /^exit code 0/);

      // The report is on the mounted volume, written by the non-root user.
      const runsDir = join(data, "outpost", "runs", String(jobId));
      const reports = [...Deno.readDirSync(runsDir)].filter((e) => e.name.endsWith(".md"));
      assert.equal(reports.length, 1);
      const reportPath = join(runsDir, reports[0]!.name);
      assert.match(await Deno.readTextFile(reportPath), /Looked around the sandbox\./);
      assert.equal((await Deno.stat(reportPath)).uid, OUTPOST_UID);

      // Inside the sandbox PID 1 was bwrap, and its /proc listed only the sandbox's own few
      // processes (the orphan among them): neither tini nor the outpost nor the agent.
      const sandboxPid1 = await Deno.readTextFile(join(work, "pid1.txt"));
      assert.match(sandboxPid1, /^\/usr\/bin\/bwrap --unshare-all /, sandboxPid1);
      const seen = (await Deno.readTextFile(join(work, "procs.txt"))).split("\n")
        .filter((l) => l.trim() !== "");
      assert.ok(seen.length <= 5, `the sandbox's /proc listed ${seen.length}: ${seen.join(" | ")}`);
      assert.ok(seen.some((l) => l.startsWith(SANDBOX_ORPHAN)), seen.join(" | "));
      for (const l of seen) assert.doesNotMatch(l, /tini|deno|agent-outpost|server\/main\.ts/);
      // In the container the outpost's processes are there, and the orphan is not: it ended
      // with the sandbox's PID namespace when the command did.
      const after = (await podman(["top", name, "args"])).stdout;
      assert.match(after, /\/usr\/bin\/tini/);
      assert.match(after, /server\/main\.ts serve/);
      assert.doesNotMatch(after, new RegExp(SANDBOX_ORPHAN), after);

      // tini reaps orphans in the container's own PID namespace: a process whose parent shell
      // (started by `podman exec`) exits at once is handed to PID 1; a `cat` blocked on a FIFO
      // until released. Once it exits it must not stay a zombie: the in-container wait ends
      // only when its /proc entry is gone.
      step("tini reaps an orphan");
      const fifo = "/tmp/tini-release";
      await podman(["exec", name, "mkfifo", fifo]);
      const orphan = (await podman([
        "exec",
        name,
        "sh",
        "-c",
        `sh -c 'exec cat ${fifo} >/dev/null' </dev/null >/dev/null 2>&1 & echo $!`,
      ])).stdout.trim();
      assert.match(orphan, /^\d+$/);
      const before = (await podman(["exec", name, "cat", `/proc/${orphan}/status`])).stdout;
      assert.match(before, /^PPid:\s+1$/m, before);
      assert.doesNotMatch(before, /^State:\s+Z/m);
      await podman(["exec", name, "sh", "-c", `echo > ${fifo}`]);
      const reaped = await podman([
        "exec",
        name,
        "timeout",
        "30",
        "sh",
        "-c",
        `while [ -e /proc/${orphan} ]; do sleep 0.05; done`,
      ], { allowFail: true });
      const left = await podman(["exec", name, "cat", `/proc/${orphan}/status`], {
        allowFail: true,
      });
      assert.equal(reaped.code, 0, `orphan ${orphan} was not reaped:\n${left.stdout}`);

      // SIGTERM (podman stop) ends the outpost cleanly: exit 0, where a stop that needed the
      // 10 s SIGKILL fallback would be 137.
      step("SIGTERM, then a restart that finds the job");
      await podman(["stop", "--time", "10", name]);
      const state = JSON.parse((await podman(["inspect", name])).stdout)[0].State;
      assert.equal(state.ExitCode, 0);
      const logs = await podman(["logs", name]);
      assert.match(logs.stdout + logs.stderr, /SIGTERM: shutting down/);

      // A restart of the same container finds the job, its run and its report.
      await podman(["start", name]);
      const again = await waitForListening(name, 2);
      const job = await (await door(`api/v1/jobs/${jobId}`)).json();
      assert.equal(job.job_id, jobId);
      assert.equal(job.latest_run.run_id, runId);
      assert.equal(job.latest_run.status, "ok");
      const report = await door(`api/v1/jobs/${jobId}/runs/${runId}/output`);
      assert.equal(report.status, 200);
      assert.match(await report.text(), /Looked around the sandbox\./);
      assert.equal(again, url);
      fake.assertNoViolations();
    } finally {
      await podman(["rm", "-f", "-t", "0", name], { allowFail: true });
      await podman(["secret", "rm", secret], { allowFail: true });
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

peerTest(
  "without --security-opt unmask=/proc/*, the run's shell call is refused with the container's fix",
  probes.podman,
  async () => {
    await ensureBaseImage();
    await ensureDenoImage();
    await buildSourceImage(IMAGE);

    const name = `agent-outpost-masked-${Deno.pid}`;
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-container-" }));
    const data = join(dir, "data");
    const work = join(dir, "workspaces", "w1");
    await Deno.mkdir(work, { recursive: true });
    await Deno.mkdir(data);
    for (const path of [data, join(dir, "workspaces"), work]) {
      await Deno.chown(path, OUTPOST_UID, OUTPOST_UID);
    }
    const fake = await startFakeModelServer({
      models: [{ id: "served-model", max_model_len: 32768 }],
    });
    const port = freePort();
    try {
      // The engine's defaults: /proc is masked, so bwrap cannot mount a fresh one.
      await podman([
        "run",
        "-d",
        "--name",
        name,
        "--network=host",
        "--health-interval=disable",
        "-v",
        `${data}:/data`,
        "-v",
        `${join(dir, "workspaces")}:/workspaces`,
        "-e",
        "AGENT_OUTPOST_HOST=127.0.0.1",
        "-e",
        `AGENT_OUTPOST_PORT=${port}`,
        "-e",
        `AGENT_BASE_URL=${fake.url}`,
        "-e",
        "AGENT_PROVIDER=chat_completions",
        "-e",
        "AGENT_MEMORY_REFLECT=0",
        IMAGE,
      ]);
      step(`started ${name} with /proc masked; waiting for the outpost to listen`);
      const url = await waitForListening(name, 1);
      const token = (await podman(["exec", name, "agent-outpost", "token", "create", "ci"])).stdout
        .trim();
      fake.enqueue(reply().tool("shell", { command: "touch ran.txt" }));
      fake.enqueue(reply().text("The shell was refused.").usage(40, 6));
      const submitted = await fetch(`${url}api/v1/jobs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ prompt: "touch a file", workdir: "/workspaces/w1" }),
      });
      assert.equal(submitted.status, 202, await submitted.clone().text());
      const { job_id: jobId, run_id: runId } = await submitted.json();
      // The model is told and answers, but its command never ran: the run ends in error, not
      // ok, with the refusal as its reason (issue 33).
      assert.equal(await waitForRunEnd(url, runId), "error");
      const run = await (await fetch(`${url}api/v1/jobs/${jobId}/runs/${runId}`, {
        headers: { Authorization: `Bearer ${token}` },
      })).json();
      assert.equal(run.exit_code, 1, JSON.stringify(run));

      // The tool result the model got says why and names the run option that fixes it.
      const refusal = firstToolResult(fake);
      assert.match(refusal, /^sandbox: bubblewrap cannot start here \(bwrap: [^)]*proc/);
      assert.ok(refusal.includes("start it with --security-opt unmask=/proc/*"), refusal);
      assert.ok(refusal.includes("docker: --security-opt systempaths=unconfined"), refusal);
      assert.ok(refusal.includes("AGENT_SANDBOX_MODE=off"), refusal);
      // And the command never ran, not even unsandboxed.
      await assert.rejects(Deno.stat(join(work, "ran.txt")), Deno.errors.NotFound);
      fake.assertNoViolations();
    } finally {
      await podman(["rm", "-f", "-t", "0", name], { allowFail: true });
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
