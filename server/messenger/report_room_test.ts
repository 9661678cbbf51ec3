// Which room a messenger-surface job's run report is posted in (spec 5.9): the job's origin
// room from its v1 metadata, else MX_ROOM. Jobs submitted by a webhook caller through the
// machine door (POST /api/v1/jobs, bearer token) carry no room, so their reports fall back to
// MX_ROOM; scheduled jobs likewise. The real messenger adapter sits on the test outpost's
// delivery seam with a recording `post` in place of the Matrix client.

import assert from "node:assert/strict";
import { createMessengerAdapter } from "../../core/messenger/adapter.ts";
import { jobInput, TEST_WORKDIR, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf, makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

const BASE = "http://outpost.test";
const MX_ROOM = "!outpost:test";

interface Post {
  room: string;
  text: string;
}

async function withMessenger() {
  const o = await makeTestOutpost({ baseUrl: BASE });
  const posts: Post[] = [];
  o.delivery.register(createMessengerAdapter({
    post: (room, text) => {
      posts.push({ room, text });
      return Promise.resolve();
    },
    defaultRoom: MX_ROOM,
    baseUrl: BASE,
  }));
  return { o, posts };
}

/** A webhook caller's submission through the machine door; resolves with job and run ids. */
async function submitV1(o: TestOutpost, token: string, body: Record<string, unknown>) {
  const res = await o.app.request("/api/v1/jobs", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ workdir: TEST_WORKDIR, output_surface: "messenger", ...body }),
  });
  assert.equal(res.status, 202);
  const { job_id, run_id } = await jsonOf(res);
  return { job: job_id as number, run: run_id as number };
}

/** Spawns the next queued run, lets it finish ok with `text`, waits for the deliveries. */
async function finish(o: TestOutpost, run: number, text: string) {
  const proc = await tickAndSpawn(o);
  proc.exit(0, { outcome: "ok", final_text: text });
  await o.scheduler.whenSettled(run);
  await o.delivery.idle();
}

Deno.test("a webhook caller's machine-door job reports to MX_ROOM; one with a room reports there", async () => {
  const { o, posts } = await withMessenger();
  await using _ = o;
  const token = o.machineToken("ci-webhook");
  const hook = await submitV1(o, token, { name: "deploy hook", prompt: "check the deploy" });
  assert.equal(o.store.getJob(hook.job)!.meta.room, undefined);
  await finish(o, hook.run, "deploy looks healthy");
  assert.equal(posts.length, 1);
  assert.equal(posts[0]!.room, MX_ROOM);
  assert.match(posts[0]!.text, /^deploy hook finished \(run \d+\)\n\ndeploy looks healthy\n/);
  assert.ok(posts[0]!.text.endsWith(`${BASE}/runs/${hook.job}/${hook.run}`));

  // The contrast: v1 metadata naming a room sends the report there, not to MX_ROOM.
  const roomed = await submitV1(o, token, {
    name: "ci report",
    prompt: "summarize CI",
    meta: { room: "!ci:test" },
  });
  await finish(o, roomed.run, "all green");
  assert.equal(posts.length, 2);
  assert.equal(posts[1]!.room, "!ci:test");
  assert.match(posts[1]!.text, /^ci report finished/);
});

Deno.test("a scheduled messenger job's report falls back to MX_ROOM as well", async () => {
  const { o, posts } = await withMessenger();
  await using _ = o;
  const job = o.scheduler.createJob(jobInput({ name: "nightly", output_surface: "messenger" }));
  o.clock.advance(3_600_000);
  const proc = await tickAndSpawn(o);
  proc.exit(0, { outcome: "ok", final_text: "nightly done" });
  const run = o.store.listRuns(job.id)[0]!;
  await o.scheduler.whenSettled(run.id);
  await o.delivery.idle();
  assert.deepEqual(posts.map((p) => p.room), [MX_ROOM]);
  assert.match(posts[0]!.text, /^nightly finished/);
});
