// The security headers every response carries (hono/secure-headers in server/app.ts), and that a
// route's own stricter header survives them.

import assert from "node:assert/strict";
import { makeTestOutpost } from "../tests/fakes/test_outpost.ts";

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
    assert.equal(res.headers.get("referrer-policy"), "same-origin", path);
    assert.equal(res.headers.get("strict-transport-security"), null, "HSTS is the proxy's");
  }
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
