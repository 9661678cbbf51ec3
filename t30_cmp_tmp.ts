import { Hono } from "hono";
import { compress } from "hono/compress";
import { makeTestOutpost } from "./tests/fakes/test_outpost.ts";
await using t = await makeTestOutpost();
const job = t.scheduler.createJob({ name: "j", prompt: "p", schedule: { kind: "every", expr: "1h", tz: "UTC" }, workdir: "/tmp" });
for (let i = 0; i < 200; i++) t.store.createRun({ job_id: job.id, status: "ok", attempt: 1, priority: 10, class: "scheduled", tokens_in: 100, tokens_out: 10, cost_usd: 0.01 });
const plain = t.app;
const zipped = new Hono();
zipped.use("*", compress());
zipped.route("/", plain);
for (const path of ["/", "/runs", "/jobs/1", "/audit"]) {
  for (const [name, app, enc] of [["plain", plain, ""], ["gzip", zipped, "gzip"]] as const) {
    const times: number[] = [];
    let size = 0;
    for (let i = 0; i < 120; i++) {
      const t0 = performance.now();
      const res = await app.request(path, { headers: enc ? { "Accept-Encoding": enc } : {} });
      const body = new Uint8Array(await res.arrayBuffer());
      times.push(performance.now() - t0);
      size = body.length;
    }
    times.sort((a, b) => a - b);
    const w = times.slice(20);
    console.log(path, name, `${(size / 1024).toFixed(1)} KiB`, `p50 ${w[Math.floor(w.length / 2)]!.toFixed(2)} ms`, `p99 ${w[Math.floor(w.length * 0.99)]!.toFixed(2)} ms`);
  }
}
