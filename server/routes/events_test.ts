import assert from "node:assert/strict";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { makeTestOutpost } from "../test_deps.ts";

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
