// Two real outposts on one PostgreSQL (issue 32): a run's report and process log live on the
// node that ran it, yet its page on the other node shows them, from the copy the running node
// stores in the database when the run ends (core/fleet/pg_run_files.ts): secret-shaped text
// redacted, a huge report cut at the page's bound with its note, and the session journal
// named as staying on the running node, with a link to the run there.

import assert from "node:assert/strict";
import { PgConnection } from "../../core/store/pg/pg_connection.ts";
import { peerTest, probes } from "../peers.ts";
import { type Fleet, type Node, startFleet, waitFor } from "./fleet_kit.ts";

/** A machine-door token's shape (aop_ + 43 base64url characters): the scanner redacts it. */
const TOKEN_SHAPE = `aop_${"Q".repeat(43)}`;

let jobs = 0;

async function runJob(fleet: Fleet, via: Node, prompt: string) {
  const created = await via.api("POST", "api/jobs", {
    name: `files ${++jobs}`, // not the prompt: the page's text must come from the report
    prompt,
    schedule: { kind: "every", expr: "1d", tz: "UTC" },
    workdir: fleet.workdir,
    timeout_s: 120,
    max_retries: 0,
  });
  assert.equal(created.status, 201, created.text);
  const job: number = created.json.job.id;
  const triggered = await via.api("POST", `api/jobs/${job}/trigger`);
  assert.equal(triggered.status, 202, triggered.text);
  const run: number = triggered.json.run.id;
  const done = await waitFor(
    `run ${run} to end`,
    async () => (await via.api("GET", `api/jobs/${job}/runs/${run}`)).json.run,
    (r) => r.status !== "queued" && r.status !== "running",
  );
  // The node whose home holds the report ran it; the other one only reads the database.
  const ranOn = fleet.nodes.find((n) => done.report_path.startsWith(`${n.home}/`))!;
  const other = fleet.nodes.find((n) => n !== ranOn)!;
  return { job, run, done, ranOn, other };
}

async function page(node: Node, job: number, run: number): Promise<string> {
  const res = await fetch(`${node.outpost.url}runs/${job}/${run}`);
  assert.equal(res.status, 200);
  return await res.text();
}

peerTest(
  "a run's page on another node shows its report and log from the shared copy, scrubbed and bounded",
  probes.postgres,
  async () => {
    const fleet = await startFleet(["n1", "n2"], 5);
    try {
      const failed = await runJob(
        fleet,
        fleet.nodes[0]!,
        `exit:1 journal marker-7315 ${TOKEN_SHAPE}`,
      );
      assert.equal(failed.done.status, "error");
      const html = await waitFor(
        "the copy to reach the other node's page",
        () => page(failed.other, failed.job, failed.run),
        (text) => text.includes("prompt: exit:1 journal marker-7315"),
      );
      assert.match(html, /fake agent report/, "the report's text");
      assert.match(html, /\[redacted machine-token\]/, "the token-shaped text is redacted");
      assert.ok(!html.includes(TOKEN_SHAPE), "and absent from the copy");
      assert.match(html, /secret finding\(s\) redacted in this copy/);
      assert.match(html, /Process log/, "the log tail of a failed run");
      assert.match(html, /fake agent \d+ started/, "the child's stderr, copied");
      assert.match(html, new RegExp(`Ran on node[\\s\\S]*${failed.ranOn.id}`));
      assert.match(
        html,
        new RegExp(`session journal is on node ${failed.ranOn.id}, where it ran`),
        "the transcript says where the journal is",
      );
      assert.doesNotMatch(html, /recorded no session/);
      // The running node's own page reads its files, as a single box does.
      const own = await page(failed.ranOn, failed.job, failed.run);
      assert.doesNotMatch(own, /Ran on node/);

      // A report over the page's bound (1 MiB) is cut, with its note, and stored cut.
      const big = await runJob(fleet, fleet.nodes[1]!, "bigreport:60000");
      assert.equal(big.done.status, "ok");
      const bigHtml = await waitFor(
        "the big report's copy",
        () => page(big.other, big.job, big.run),
        (text) => text.includes("only the first 1048576 are shown"),
      );
      assert.match(bigHtml, /filler line of a long report/);
      const db = new PgConnection({ url: fleet.url });
      try {
        const row = db.prepare(
          "SELECT length(report) AS n, node_id FROM run_files WHERE run_id = ?",
        ).get(big.run)!;
        assert.ok(Number(row.n) <= 1024 * 1024, `stored ${row.n} characters`);
        assert.equal(row.node_id, big.ranOn.id);
      } finally {
        db.close();
      }
    } finally {
      await fleet.close();
    }
  },
);
