import assert from "node:assert/strict";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

/** Reads whole SSE frames from a response body. */
function frames(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<{ event: string; id?: string; data: Record<string, unknown> } | null> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith(":")) continue; // comment (keepalive)
          const field = (name: string) =>
            frame.split("\n").find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          const id = field("id");
          return {
            event: field("event") ?? "message",
            ...(id === undefined ? {} : { id }),
            data: JSON.parse(field("data") ?? "null"),
          };
        }
        const { done, value } = await reader.read();
        if (done) return null;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

Deno.test("GET /api/events streams run, job and inbox pings as they happen", async () => {
  await using t = await makeTestOutpost();
  const res = await t.app.request("/api/events");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
  const stream = frames(res);
  const hello = await stream.next();
  assert.equal(hello!.event, "hello");
  assert.equal(hello!.data.seq, 0);

  // Its first fire is an hour away (10:00), so only the trigger below starts a run.
  const created = await (await t.request("POST", "/api/jobs", jobInput())).json();
  const jobId = created.job.id;
  assert.deepEqual((await stream.next())!.data, {
    type: "job",
    job_id: jobId,
    change: "created",
    seq: 1,
    at: "2026-03-02T09:00:00Z",
  });
  await t.request("POST", `/api/jobs/${jobId}/trigger`);
  const queued = await stream.next();
  assert.equal(queued!.event, "run");
  assert.equal(queued!.id, "2");
  assert.equal(queued!.data.status, "queued");
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  assert.equal((await stream.next())!.data.status, "running");
  child.exit(2, { session_id: "s", questions: [{ kind: "question", text: "Which?" }] });
  await t.scheduler.idle();
  await t.delivery.idle();
  const events = [await stream.next(), await stream.next()].map((e) =>
    `${e!.event}:${e!.data.status ?? e!.data.state}`
  );
  assert.deepEqual(events.sort(), ["inbox:open", "run:needs_human"]);
  const item = t.store.listInbox({ state: "open" })[0]!;
  await t.request("POST", `/api/inbox/${item.id}/dismiss`);
  const dismissed = await stream.next();
  assert.equal(dismissed!.event, "inbox");
  assert.equal(dismissed!.data.state, "dismissed");
  await stream.cancel();
});

Deno.test("GET /api/events replays missed events after Last-Event-ID and ends when the feed closes", async () => {
  await using t = await makeTestOutpost();
  for (let i = 0; i < 3; i++) t.deps.live.publish({ type: "governor" });
  const res = await t.app.request("/api/events", { headers: { "Last-Event-ID": "1" } });
  const stream = frames(res);
  assert.equal((await stream.next())!.event, "hello");
  assert.deepEqual([(await stream.next())!.id, (await stream.next())!.id], ["2", "3"]);
  t.deps.live.close();
  assert.equal(await stream.next(), null, "the stream ends on shutdown");
});

Deno.test("GET /api/events caps live streams: 429 past the per-client cap, 503 past the total, and closing one frees its slot", async () => {
  await using t = await makeTestOutpost({ env: { AGENT_OUTPOST_TRUSTED_USER_HEADER: "X-User" } });
  const { createApp } = await import("../app.ts");
  const app = createApp({
    ...t.deps,
    trustedUserHeader: "X-User",
    eventStreamLimits: { perClient: 2, total: 3 },
  });
  const open = (user: string) => app.request("/api/events", { headers: { "X-User": user } });
  const streams: ReturnType<typeof frames>[] = [];
  for (const user of ["ann", "ann"]) {
    const res = await open(user);
    assert.equal(res.status, 200);
    const s = frames(res);
    assert.equal((await s.next())!.event, "hello");
    streams.push(s);
  }
  const overClient = await open("ann");
  assert.equal(overClient.status, 429, "a third stream for the same user");
  assert.equal((await overClient.json()).error.code, "too_many_streams");
  assert.equal(overClient.headers.get("retry-after"), "30");

  const bob = await open("bob");
  assert.equal(bob.status, 200);
  streams.push(frames(bob));
  const overTotal = await open("cy");
  assert.equal(overTotal.status, 503, "the outpost-wide cap");
  assert.equal((await overTotal.json()).error.code, "streams_full");

  // A client that goes away gives its slot back.
  await streams.shift()!.cancel();
  const again = await open("cy");
  assert.equal(again.status, 200);
  streams.push(frames(again));
  assert.equal((await open("dee")).status, 503);
  for (const s of streams) await s.cancel();
  assert.equal((await open("dee")).status, 200);
});

Deno.test("without a trusted user header, streams count against the peer address, never X-Forwarded-For", async () => {
  await using t = await makeTestOutpost();
  const { createApp } = await import("../app.ts");
  const app = createApp({ ...t.deps, eventStreamLimits: { perClient: 1, total: 10 } });
  const peer = (ip: string) => ({ remoteAddr: { transport: "tcp", hostname: ip, port: 5000 } });
  const first = await app.request("/api/events", {}, peer("10.0.0.1"));
  assert.equal(first.status, 200);
  const spoofed = await app.request(
    "/api/events",
    { headers: { "X-Forwarded-For": "192.0.2.9", "X-User": "someone" } },
    peer("10.0.0.1"),
  );
  assert.equal(spoofed.status, 429);
  await spoofed.body?.cancel();
  const other = await app.request("/api/events", {}, peer("10.0.0.2"));
  assert.equal(other.status, 200);
  await first.body!.cancel();
  await other.body!.cancel();
});
