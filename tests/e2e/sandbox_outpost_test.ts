// Issue 14 through the outpost: a real `agent-outpost` runs a scheduled job with the real agent
// (release permission flags); the job's model tries the job store, the other job's workspace,
// the outpost's own port, the keys in the outpost's environment and the agent home. All come
// back empty, the run page says which sandbox ran the job, the child resolved its key from the
// settings file (the outpost's environment keys never reach it), and no key is on disk.
// With sandbox = off the run page says so (the command ran unsandboxed). Without a usable
// bubblewrap the job's shell call is refused and its run ends in error, never ok (issue 33).

import assert from "node:assert/strict";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { tempHome } from "./agent_process.ts";
import { binWithoutBwrap } from "./no_bwrap_kit.ts";
import {
  closeStack,
  dashboardApi,
  type Stack,
  startOutpost,
  startStack,
  waitForRunEnd,
} from "./outpost_process_kit.ts";
import { peerTest, probes } from "../peers.ts";
import {
  assertNoCanaryUnder,
  type Attack,
  attackReply,
  attacks,
  CANARY_ENV,
  CANARY_SETTINGS_KEY,
  checkAttacks,
  checkNoEscape,
  checkProjectUntouched,
  plantProject,
  plantSecrets,
  toolResultsById,
} from "./sandbox_attack.ts";

peerTest(
  "outpost: a scheduled job's model cannot read the job store or another job's workspace",
  probes.bubblewrap,
  async () => {
    const home = await tempHome();
    const agentHome = `${home}/.agent`;
    const fake = await startFakeModelServer({
      models: [{ id: "served-model", max_model_len: 32768 }],
    });
    // The settings file names the model server, so its api_key is stored for that origin and
    // may go there (a stored key goes only where it was stored for: key_binding.ts).
    await plantSecrets(
      { agentHome, home, other: `${home}/ws-b`, port: 0 },
      `base_url = "${fake.url}"`,
    );
    const outpost = await startOutpost(home, {
      AGENT_BASE_URL: fake.url,
      AGENT_PROVIDER: "chat_completions",
      AGENT_MEMORY_REFLECT: "0",
      // Keys in the outpost's own environment: a job child must never hold them.
      ...CANARY_ENV,
    });
    try {
      const { url } = outpost;
      const targets = {
        agentHome,
        home,
        other: `${home}/ws-b`,
        port: Number(new URL(url).port),
      };
      const api = await dashboardApi(url);
      await Deno.mkdir(`${home}/ws-a`);
      await plantProject(`${home}/ws-a`);
      const schedule = { kind: "every", expr: "1h", tz: "UTC" };
      const other = await api("POST", "api/jobs", {
        name: "job-b",
        prompt: "keep b's secret",
        schedule,
        workdir: `${home}/ws-b`,
      });
      assert.equal(other.status, 201, other.text);
      const created = await api("POST", "api/jobs", {
        name: "job-a",
        prompt: "look around",
        schedule,
        workdir: `${home}/ws-a`,
      });
      assert.equal(created.status, 201, created.text);
      const jobId = created.json.job.id as number;

      const store = `${agentHome}/outpost/outpost.db`;
      const list: Attack[] = [
        ...attacks(targets),
        {
          id: "store",
          command:
            `ls ${agentHome}/outpost; sqlite3 ${store} 'select prompt from jobs' || cat ${store}`,
          check: (c) => {
            assert.ok(!c.includes("keep b's secret"), c);
            assert.match(c, /No such file or directory/);
          },
        },
      ];
      fake.enqueue(attackReply(list), reply().text("Looked around."));
      const triggered = await api("POST", `api/jobs/${jobId}/trigger`);
      assert.equal(triggered.status, 202, triggered.text);
      const runId = triggered.json.run.id as number;
      // Unsandboxed, `kill -9 $PPID` alone would end the run as an error (the agent killed).
      assert.equal(await waitForRunEnd(url, runId), "ok");

      checkAttacks(list, toolResultsById(fake.requests.at(-1)!.body));
      await checkNoEscape(targets);
      await checkProjectUntouched(`${home}/ws-a`);
      // The child found its key in the settings file: had the outpost's environment reached it,
      // ANTHROPIC_API_KEY (earlier in spec 4.3's order) would have been sent instead.
      assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${CANARY_SETTINGS_KEY}`);
      const runPage = await (await fetch(`${url}runs/${jobId}/${runId}`)).text();
      assert.match(runPage, /Sandbox:<\/strong> auto \(bubblewrap, network off\)/);
      // The job store, the run's report and log, the session: no key anywhere.
      await assertNoCanaryUnder(home, [`${agentHome}/settings.toml`]);
      fake.assertNoViolations();
    } finally {
      await closeStack({ home, fake, outpost });
    }
  },
);

/**
 * Creates an hourly job "write a file" in a new `<home>/ws`, queues the model's replies and
 * triggers the job: the ids of the job and of its run.
 */
async function triggerJobInWs(
  stack: Stack,
  name: string,
  ...replies: Parameters<Stack["fake"]["enqueue"]>
): Promise<{ jobId: number; runId: number }> {
  const { home, fake, api } = stack;
  await Deno.mkdir(`${home}/ws`);
  const created = await api("POST", "api/jobs", {
    name,
    prompt: "write a file",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: `${home}/ws`,
  });
  assert.equal(created.status, 201, created.text);
  const jobId = created.json.job.id as number;
  fake.enqueue(...replies);
  const triggered = await api("POST", `api/jobs/${jobId}/trigger`);
  assert.equal(triggered.status, 202, triggered.text);
  return { jobId, runId: triggered.json.run.id as number };
}

Deno.test("outpost: with sandbox = off the job's command runs unsandboxed and the run page says so", async () => {
  // `off` must never be silent (issue 14): the banner, `agent config`, the headless report and
  // the run page all say it. This is the run page, through a real outpost and agent. No bwrap
  // is needed: off never starts it.
  const stack = await startStack('sandbox = "off"\n');
  const { home, fake } = stack;
  try {
    const { url } = stack.outpost;
    const { jobId, runId } = await triggerJobInWs(
      stack,
      "unsandboxed",
      reply().tool("shell", { command: "echo ran > ran.txt; ls /proc | grep -c '^[0-9]'" }, {
        id: "c1",
      }),
      reply().text("Wrote it."),
    );
    assert.equal(await waitForRunEnd(url, runId), "ok");
    assert.equal(await Deno.readTextFile(`${home}/ws/ran.txt`), "ran\n");
    // Unsandboxed, the command sees the host's processes (a bwrap PID namespace shows ~3).
    const result = toolResultsById(fake.requests.at(-1)!.body).get("c1") ?? "";
    const seen = Number(/^exit code 0\n(\d+)$/.exec(result)?.[1]);
    assert.ok(seen > 3, `host processes visible: ${seen}`);
    const runPage = await (await fetch(`${url}runs/${jobId}/${runId}`)).text();
    assert.match(
      runPage,
      /Sandbox:<\/strong> <strong>off \(commands run unsandboxed, as the agent(?:'|&#39;|&#x27;)s user\)<\/strong>/,
    );
    assert.doesNotMatch(runPage, /Sandbox:<\/strong> auto/);
    fake.assertNoViolations();
  } finally {
    await stack.close();
  }
});

Deno.test("outpost: a job whose shell call was refused for want of a sandbox ends in error, not ok", async () => {
  const path = await binWithoutBwrap(await Deno.makeTempDir({ prefix: "agent-nobwrap-" }));
  const stack = await startStack(undefined, { PATH: path });
  const { home, fake } = stack;
  try {
    const { url } = stack.outpost;
    const { jobId, runId } = await triggerJobInWs(
      stack,
      "no sandbox",
      reply().tool("shell", { command: "echo ran > ran.txt" }, { id: "c1" }),
      reply().text("I could not run it."),
    );
    assert.equal(await waitForRunEnd(url, runId), "error");
    await assert.rejects(Deno.stat(`${home}/ws/ran.txt`), Deno.errors.NotFound);
    const refusal = toolResultsById(fake.requests.at(-1)!.body).get("c1") ?? "";
    assert.match(refusal, /^sandbox: bubblewrap is not installed/);
    const runPage = await (await fetch(`${url}runs/${jobId}/${runId}`)).text();
    assert.ok(
      runPage.includes("a shell call was refused, so the run did not do its work"),
      runPage,
    );
    fake.assertNoViolations();
  } finally {
    await stack.close();
    await Deno.remove(path.replace(/\/bin-without-bwrap$/, ""), { recursive: true });
  }
});
