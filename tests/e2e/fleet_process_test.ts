// Three real outposts on one PostgreSQL (issue 32): every node's dashboard shows the whole
// fleet; kill -9 of a random node mid-run, round after round, never runs anything twice and
// leaves every run accounted for (the survivors mark the dead node's run lost once its lease
// lapses); a node paused past its lease stops its own children when it wakes and the
// survivors' takeover stands; the database restarted under the nodes: they reconnect.
// AGENT_TEST_FLEET_ROUNDS sets the kill -9 rounds (default 20, the figure; ~70 s).

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { pgCluster } from "../pg_cluster.ts";
import { type Fleet, type Node, startFleet, waitFor } from "./fleet_kit.ts";

const ROUNDS = Number(Deno.env.get("AGENT_TEST_FLEET_ROUNDS") ?? "20");

async function makeJob(node: Node, workdir: string, prompt: string): Promise<number> {
  const res = await node.api("POST", "api/jobs", {
    name: `fleet ${prompt}`,
    prompt,
    schedule: { kind: "every", expr: "1d", tz: "UTC" },
    workdir,
    timeout_s: 120,
    max_retries: 0,
  });
  assert.equal(res.status, 201, res.text);
  return res.json.job.id;
}

async function trigger(node: Node, jobId: number): Promise<number> {
  const res = await node.api("POST", `api/jobs/${jobId}/trigger`);
  assert.equal(res.status, 202, res.text);
  return res.json.run.id;
}

async function runOf(node: Node, jobId: number, runId: number) {
  const res = await node.api("GET", `api/jobs/${jobId}/runs/${runId}`);
  assert.equal(res.status, 200, res.text);
  return res.json.run ?? res.json;
}

async function withFleet(fn: (fleet: Fleet) => Promise<void>, leaseS = 3) {
  const fleet = await startFleet(["n1", "n2", "n3"], leaseS);
  try {
    await fn(fleet);
  } finally {
    await fleet.close();
  }
}

peerTest(
  "three outposts on one database: each dashboard lists the whole fleet; a run executes once",
  probes.postgres,
  async () => {
    await withFleet(async (fleet) => {
      for (const node of fleet.nodes) {
        const body = (await node.api("GET", "api/fleet")).json;
        assert.equal(body.node_id, node.id);
        assert.equal(body.store, "postgres");
        assert.deepEqual(body.nodes.map((n: { node_id: string }) => n.node_id), ["n1", "n2", "n3"]);
        assert.ok(body.nodes.every((n: { alive: boolean }) => n.alive));
      }
      const [a, b] = fleet.nodes;
      const job = await makeJob(a!, fleet.workdir, "sleep:200");
      const run = await trigger(b!, job);
      const done = await waitFor(
        "the run to end",
        () => runOf(a!, job, run),
        (r) => r.status === "ok",
      );
      assert.equal(done.status, "ok");
      assert.equal((await fleet.executions(job)).length, 1);
      // Every node's dashboard shows the run, whichever node ran it.
      for (const node of fleet.nodes) {
        assert.equal((await runOf(node, job, run)).status, "ok");
      }
    });
  },
);

peerTest(
  `kill -9 of a random node mid-run, ${ROUNDS} rounds: no run twice, every run accounted for`,
  probes.postgres,
  async () => {
    await withFleet(async (fleet) => {
      const job = await makeJob(fleet.nodes[0]!, fleet.workdir, "sleep:4000");
      const runs: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const via = fleet.nodes[Math.floor(Math.random() * fleet.nodes.length)]!;
        const run = await trigger(via, job);
        runs.push(run);
        const running = await waitFor(
          "the run to start",
          () => runOf(via, job, run),
          (r) => r.status === "running",
        );
        // Whichever node claimed it (its report lies in that node's home) is the one killed.
        const victim = fleet.nodes.find((n) => running.report_path.startsWith(`${n.home}/`))!;
        victim.outpost.child.kill("SIGKILL");
        await victim.outpost.child.status;
        const survivor = fleet.nodes.find((n) => n.id !== victim.id)!;
        const settled = await waitFor(
          `round ${round}: a survivor to settle run ${run}`,
          () => runOf(survivor, job, run),
          (r) => r.status !== "running" && r.status !== "queued",
        );
        assert.equal(settled.status, "lost", `round ${round}: ${JSON.stringify(settled)}`);
        assert.match(settled.reason, new RegExp(`node ${victim.id} stopped renewing its lease`));
        await fleet.start(victim.id, victim.home); // back, same id and home
      }
      // Each run started exactly one child across the fleet, and no run is left in flight.
      assert.equal((await fleet.executions(job)).length, ROUNDS);
      for (const run of runs) assert.equal((await runOf(fleet.nodes[0]!, job, run)).status, "lost");
    });
  },
);

peerTest(
  "a node paused past its lease stops its own children when it wakes; the takeover stands",
  probes.postgres,
  async () => {
    await withFleet(async (fleet) => {
      const [first] = fleet.nodes;
      const job = await makeJob(first!, fleet.workdir, "hang");
      const run = await trigger(first!, job);
      const running = await waitFor(
        "the run to start",
        () => runOf(first!, job, run),
        (r) => r.status === "running",
      );
      const pid = running.pid as number;
      // The node that claimed it (its report lies in that node's home) is the one paused.
      const paused = fleet.nodes.find((n) => running.report_path.startsWith(`${n.home}/`))!;
      const survivor = fleet.nodes.find((n) => n !== paused)!;
      Deno.kill(paused.outpost.child.pid, "SIGSTOP");
      try {
        const lost = await waitFor(
          "the takeover",
          () => runOf(survivor, job, run),
          (r) => r.status === "lost",
        );
        assert.match(lost.reason, new RegExp(`node ${paused.id} stopped renewing its lease`));
        assert.ok(alive(pid), "the paused node's child lives on: only its own node stops it");
      } finally {
        Deno.kill(paused.outpost.child.pid, "SIGCONT");
      }
      await waitFor(
        "the woken node to stop its child",
        () => Promise.resolve(alive(pid)),
        (a) => !a,
      );
      const fleetView = await waitFor(
        "the woken node to register again",
        async () => (await survivor.api("GET", "api/fleet")).json.nodes,
        (nodes: { node_id: string; alive: boolean; fenced: number }[]) =>
          nodes.some((n) => n.node_id === paused.id && n.alive && n.fenced === 1),
      );
      assert.ok(fleetView);
      assert.equal((await runOf(paused, job, run)).status, "lost", "the takeover stands");
    });
  },
);

peerTest(
  "the database restarted under the nodes: they reconnect and go on running",
  probes.postgres,
  async () => {
    await withFleet(async (fleet) => {
      const job = await makeJob(fleet.nodes[0]!, fleet.workdir, "sleep:100");
      const first = await trigger(fleet.nodes[1]!, job);
      await waitFor(
        "the first run",
        () => runOf(fleet.nodes[1]!, job, first),
        (r) => r.status === "ok",
      );
      const cluster = pgCluster();
      cluster.stop();
      await new Promise((r) => setTimeout(r, 1500)); // a renewal or two fails meanwhile
      cluster.start();
      for (const node of fleet.nodes) {
        const run = await waitFor(
          `${node.id} to answer again`,
          async () => {
            const res = await node.api("POST", `api/jobs/${job}/trigger`);
            return res.status === 202 ? res.json.run.id as number : null;
          },
          (id) => id !== null,
        );
        const done = await waitFor(
          `run ${run}`,
          () => runOf(node, job, run!),
          (r) => r.status === "ok",
        );
        assert.equal(done.status, "ok");
      }
      assert.equal((await fleet.executions(job)).length, 4);
      // Every node still holds its lease.
      const nodes = (await fleet.nodes[2]!.api("GET", "api/fleet")).json.nodes;
      assert.ok(
        nodes.every((n: { alive: boolean }) => n.alive),
        JSON.stringify(nodes),
      );
    });
  },
);

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT"); // signal 0 is not offered; SIGCONT is harmless to a live child
    return true;
  } catch {
    return false;
  }
}

peerTest(
  "the database restarted while every node runs a child: each outcome is recorded when it is back",
  probes.postgres,
  async () => {
    // Leases of 15 s outlast the restart, so no node fences: the runs go on and end ok.
    await withFleet(async (fleet) => {
      const started: { node: Node; job: number; run: number }[] = [];
      for (const node of fleet.nodes) {
        const job = await makeJob(node, fleet.workdir, `sleep:2500 ${node.id}`);
        const run = await trigger(node, job);
        await waitFor(
          `${node.id}'s run to start`,
          () => runOf(node, job, run),
          (r) => r.status === "running",
        );
        started.push({ node, job, run });
      }
      const cluster = pgCluster();
      cluster.stop(); // the children end while the database is down
      await new Promise((r) => setTimeout(r, 3500));
      cluster.start();
      for (const { node, job, run } of started) {
        const done = await waitFor(
          `run ${run} on ${node.id} to be recorded`,
          () => runOf(node, job, run).catch(() => ({ status: "unreachable" })),
          (r) => r.status !== "running" && r.status !== "unreachable",
        );
        assert.equal(done.status, "ok", JSON.stringify(done));
        assert.equal((await fleet.executions(job)).length, 1);
      }
    }, 15);
  },
);

peerTest(
  "a job pinned to a label runs only on the node that offers it",
  probes.postgres,
  async () => {
    await withFleet(async (fleet) => {
      const gpu = await fleet.start("n4", undefined, { AGENT_OUTPOST_NODE_LABELS: "gpu" });
      const [plain] = fleet.nodes;
      const res = await plain!.api("POST", "api/jobs", {
        name: "pinned",
        prompt: "sleep:100",
        schedule: { kind: "every", expr: "1d", tz: "UTC" },
        workdir: fleet.workdir,
        pin_label: "gpu",
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.job.meta.pin_label, "gpu");
      const job = res.json.job.id;
      const run = await trigger(plain!, job); // queued here; only n4 may claim it
      const done = await waitFor(
        "the pinned run",
        () => runOf(plain!, job, run),
        (r) => r.status === "ok",
      );
      assert.equal(done.status, "ok");
      assert.equal((await fleet.executions(job, gpu.home)).length, 1, "it ran on n4");
      assert.equal((await fleet.executions(job)).length, 1, "and nowhere else");
    });
  },
);
