import assert from "node:assert/strict";
import { checkPin, httpPinResolver } from "./pin.ts";

Deno.test("checkPin: mismatch only on a positive answer that lacks the model", async () => {
  const r = (ids: string[] | null) => () => Promise.resolve(ids);
  assert.equal((await checkPin(r(["a", "b"]), "http://x/v1", "b")).drift, false);
  const drift = await checkPin(r(["a", "b"]), "http://x/v1", "c");
  assert.ok(drift.drift);
  assert.match(drift.reason, /pinned model c is not served at http:\/\/x\/v1 \(serving: a, b\)/);
  assert.equal((await checkPin(r(null), "http://x/v1", "c")).drift, false);
  assert.equal((await checkPin(r([]), "http://x/v1", "c")).drift, false);
  assert.equal((await checkPin(r(["a"]), "http://x/v1", "default")).drift, false);
  assert.equal((await checkPin(r(["a"]), "", "c")).drift, false, "no endpoint snapshot");
  assert.equal((await checkPin(null, "http://x/v1", "c")).drift, false);
  assert.equal(
    (await checkPin(() => Promise.reject(new Error("x")), "http://x/v1", "c")).drift,
    false,
  );
});

Deno.test("httpPinResolver lists /v1/models of a real server; errors are no answer", async () => {
  let status = 200;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path !== "/v1/models") return new Response("", { status: 404 });
    return Response.json({
      object: "list",
      data: [{ id: "qwen3", max_model_len: 32768 }, { id: "llama" }],
    }, {
      status,
    });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const resolve = httpPinResolver({ fetch });
  assert.deepEqual(await resolve(`${base}/v1`), ["qwen3", "llama"]);
  assert.deepEqual(await resolve(`${base}/v1/`), ["qwen3", "llama"]);
  assert.deepEqual(await resolve(base), ["qwen3", "llama"], "a base without /v1 gets it added");
  status = 500;
  assert.equal(await resolve(`${base}/v1`), null);
  assert.equal(
    await httpPinResolver({ fetch: () => Promise.reject(new TypeError("down")) })(base),
    null,
  );
});
