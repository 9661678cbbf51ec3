// The baseline process for scripts/bench_outpost_http.ts: a bare Hono handler answering a
// constant JSON body on 127.0.0.1 port 0, in its own process like agent-outpost, so the two
// are loaded the same way. Prints `listening on URL` and serves until killed.

import { Hono } from "hono";

const app = new Hono();
const constant = { jobs: [] };
app.get("/api/jobs", (c) => c.json(constant));
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}/`),
}, app.fetch);
