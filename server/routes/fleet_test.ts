// The fleet's doors on a single box: GET /api/fleet lists this outpost alone, /fleet shows it,
// and GET /metrics answers Prometheus text whose fire-lag histogram counts fires.
// (Several nodes on PostgreSQL: tests/e2e/fleet_process_test.ts; a real scrape:
// tests/e2e/fleet_metrics_test.ts.)

import assert from "node:assert/strict";
import { jobInput, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf as json, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

/** `name{labels} value` samples of a Prometheus text body, keyed by name and labels. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(\S+) (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

Deno.test("GET /api/fleet and /fleet: a single box is a fleet of one", async () => {
  await using t = await makeTestOutpost();
  const body = await json(await t.app.request("/api/fleet"));
  assert.equal(body.node_id, "local");
  assert.equal(body.store, "sqlite");
  assert.equal(body.nodes.length, 1);
  assert.equal(body.nodes[0].alive, true);
  assert.equal(body.nodes[0].running, 0);
  const page = await t.app.request("/fleet");
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<h1 id="fleet-title">Fleet<\/h1>/);
  assert.match(html, /data-node="local"/);
});

Deno.test("GET /metrics: Prometheus text; a fire shows in the lag histogram, queue and runners", async () => {
  await using t = await makeTestOutpost();
  const before = await t.app.request("/metrics");
  assert.equal(before.status, 200);
  assert.match(before.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
  const first = samples(await before.text());
  assert.equal(first.get("outpost_fire_lag_seconds_count"), 0);
  assert.equal(first.get('outpost_node_info{node="local",store="sqlite"}'), 1);

  const created = await t.request(
    "POST",
    "/api/jobs",
    jobInput({
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
    }),
  );
  assert.equal(created.status, 201);
  t.clock.advance(3_600_000 + 30_000); // the first slot, 30 s late
  await tickAndSpawn(t);
  const text = await (await t.app.request("/metrics")).text();
  const after = samples(text);
  assert.equal(after.get("outpost_fire_lag_seconds_count"), 1);
  assert.equal(after.get('outpost_fire_lag_seconds_bucket{le="15"}'), 0);
  assert.equal(after.get('outpost_fire_lag_seconds_bucket{le="30"}'), 1);
  assert.equal(after.get('outpost_runners_in_use{class="scheduled"}'), 1);
  assert.equal(after.get('outpost_runs_24h{status="running"}'), 1);
  assert.equal(after.get("outpost_queue_depth"), 0);
  // Each family's samples stand together under one TYPE line (the text format's rule).
  const types = text.split("\n").filter((l) => l.startsWith("# TYPE ")).map((l) => l.split(" ")[2]);
  assert.equal(new Set(types).size, types.length);
});
