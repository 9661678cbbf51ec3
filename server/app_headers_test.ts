// The security headers every response carries (hono/secure-headers in server/app.ts), and that a
// route's own stricter header survives them.

import assert from "node:assert/strict";
import { makeTestOutpost } from "../tests/fakes/test_outpost.ts";
import { acceptsCompression } from "./app.ts";

const EVERY_RESPONSE: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

Deno.test("every response carries the security headers, errors and the machine door too", async () => {
  await using t = await makeTestOutpost();
  for (const path of ["/api/jobs", "/api/no-such-route", "/api/v1/jobs", "/healthz", "/nowhere"]) {
    const res = await t.app.request(path);
    await res.body?.cancel();
    for (const [name, value] of Object.entries(EVERY_RESPONSE)) {
      assert.equal(res.headers.get(name), value, `${name} on ${path} (${res.status})`);
    }
    // An unknown page path answers the friendly 404 page, which keeps the pages' own policy.
    const referrer = path === "/nowhere" ? "no-referrer" : "same-origin";
    assert.equal(res.headers.get("referrer-policy"), referrer, path);
    assert.equal(res.headers.get("strict-transport-security"), null, "HSTS is the proxy's");
  }
});

Deno.test("pages, JSON and static files over 1 KiB are gzip-compressed when accepted; events never", async () => {
  await using t = await makeTestOutpost();
  for (const path of ["/", "/runs", "/api/jobs?limit=200", "/static/base.css"]) {
    const plain = await t.app.request(path);
    const plainBytes = (await plain.arrayBuffer()).byteLength;
    const zipped = await t.app.request(path, { headers: { "Accept-Encoding": "gzip" } });
    const zippedBytes = (await zipped.arrayBuffer()).byteLength;
    if (plainBytes < 1024) continue;
    assert.equal(plain.headers.get("content-encoding"), null, path);
    assert.equal(zipped.headers.get("content-encoding"), "gzip", path);
    assert.match(zipped.headers.get("vary") ?? "", /Accept-Encoding/, path);
    assert.ok(zippedBytes < plainBytes / 2, `${path}: ${zippedBytes} of ${plainBytes} bytes`);
  }
  const events = await t.app.request("/api/events", { headers: { "Accept-Encoding": "gzip" } });
  assert.match(events.headers.get("content-type") ?? "", /text\/event-stream/);
  assert.equal(events.headers.get("content-encoding"), null);
  await events.body?.cancel();
});

Deno.test("compression runs only for a request that accepts gzip or deflate (q above 0)", async () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ["", false],
    ["identity", false],
    ["br", false],
    ["gzip", true],
    ["deflate", true],
    ["br, gzip;q=0.8", true],
    ["GZIP", true],
    ["gzip;q=0", false],
    ["gzip; q=0, deflate;q=0.0", false],
    ["gzip;q=0.001", true],
  ];
  for (const [header, expected] of cases) {
    assert.equal(acceptsCompression(header), expected, JSON.stringify(header));
  }
  await using t = await makeTestOutpost();
  const refused = await t.app.request("/", { headers: { "Accept-Encoding": "gzip;q=0" } });
  assert.equal(refused.headers.get("content-encoding"), null);
  await refused.body?.cancel();
});

Deno.test("a compressed static file still revalidates to 304 with its weak ETag", async () => {
  await using t = await makeTestOutpost();
  const first = await t.app.request("/static/base.css", { headers: { "Accept-Encoding": "gzip" } });
  await first.body?.cancel();
  const etag = first.headers.get("etag")!;
  assert.match(etag, /^W\/"/);
  const again = await t.app.request("/static/base.css", {
    headers: { "Accept-Encoding": "gzip", "If-None-Match": etag },
  });
  assert.equal(again.status, 304);
});

Deno.test("a page keeps its own referrer policy and content security policy", async () => {
  await using t = await makeTestOutpost();
  const res = await t.app.request("/");
  await res.body?.cancel();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("referrer-policy"), "no-referrer");
  assert.match(res.headers.get("content-security-policy") ?? "", /default-src/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
});
