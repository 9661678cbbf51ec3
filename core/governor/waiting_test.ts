import assert from "node:assert/strict";
import { metricsUrlFor, parseWaitingRequests, vllmWaitingReader } from "./waiting.ts";

const METRICS = `# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="qwen3"} 2.0
vllm:num_requests_waiting{engine="1",model_name="qwen3"} 1.0
vllm:num_requests_waiting_by_reason{reason="capacity"} 9.0
vllm:num_requests_running{engine="0",model_name="qwen3"} 4.0
`;

Deno.test("the waiting gauge sums its samples and ignores look-alike metrics", () => {
  assert.equal(parseWaitingRequests(METRICS), 3);
  assert.equal(parseWaitingRequests("vllm:num_requests_waiting 0\n"), 0);
  assert.equal(parseWaitingRequests("# nothing here\n"), null);
});

Deno.test("metrics URL sits at the server root", () => {
  assert.equal(metricsUrlFor("http://gpu:8000/v1"), "http://gpu:8000/metrics");
  assert.equal(metricsUrlFor("http://gpu:8000/v1/"), "http://gpu:8000/metrics");
  assert.equal(metricsUrlFor("http://gpu:8000"), "http://gpu:8000/metrics");
});

Deno.test("the reader is fail-open: errors and non-2xx give null", async () => {
  const signal = new AbortController().signal;
  const ok = vllmWaitingReader({
    fetch: () => Promise.resolve(new Response(METRICS)),
    url: "http://m",
  });
  assert.equal(await ok(signal), 3);
  const down = vllmWaitingReader({
    fetch: () => Promise.reject(new TypeError("refused")),
    url: "http://m",
  });
  assert.equal(await down(signal), null);
  const e500 = vllmWaitingReader({
    fetch: () => Promise.resolve(new Response("no", { status: 500 })),
    url: "http://m",
  });
  assert.equal(await e500(signal), null);
});

Deno.test("the reader talks to a real HTTP server", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/metrics"
        ? new Response(METRICS)
        : new Response("", { status: 404 }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/metrics`;
  assert.equal(await vllmWaitingReader({ fetch, url })(new AbortController().signal), 3);
});
