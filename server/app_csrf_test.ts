import assert from "node:assert/strict";
import { jobInput, TEST_WORKDIR } from "../tests/fakes/scheduler_kit.ts";
import { CSRF_COOKIE, CSRF_HEADER } from "./http/csrf.ts";
import { jsonOf, makeTestOutpost, TEST_CSRF_TOKEN } from "../tests/fakes/test_outpost.ts";

/** A concrete path for a route pattern: every :param (with or without a regex) becomes 1. */
function concrete(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, "1").replace(/\*$/, "x");
}

/**
 * The one exemption besides the machine door, by exact route: the code host's webhook
 * deliveries carry no cookie and no CSRF header (they are not browser requests) and are
 * authenticated by the HMAC-SHA256 of the body under the trigger's secret instead, which a
 * cross-site page cannot compute. The test below checks that this route refuses unsigned
 * requests, so the exemption is not an open door.
 */
const WEBHOOK_EXEMPT = new Set(["POST /hooks/github/:id{[0-9]{1,15}}"]);

Deno.test("CSRF: every non-GET route outside /api/v1/ refuses a missing or wrong token with 403", async () => {
  await using t = await makeTestOutpost();
  // Make ids 1 exist, so a route that skipped the check would answer 2xx/409, not 404.
  t.scheduler.createJob(jobInput());
  const mutating = t.app.routes.filter((r) =>
    r.method !== "GET" && r.method !== "ALL" && r.method !== "HEAD" &&
    !r.path.startsWith("/api/v1") && !WEBHOOK_EXEMPT.has(`${r.method} ${r.path}`)
  );
  const paths = new Set(mutating.map((r) => `${r.method} ${r.path}`));
  // The enumeration must see the mutating routes of spec 4.5 (guards against an empty list).
  for (
    const expected of [
      "POST /api/jobs",
      "PUT /api/jobs/:id{[0-9]{1,15}}",
      "DELETE /api/jobs/:id{[0-9]{1,15}}",
      "POST /api/jobs/:id{[0-9]{1,15}}/trigger",
      "POST /api/jobs/:id{[0-9]{1,15}}/cancel",
      "POST /api/inbox/:id{[0-9]{1,15}}/answer",
      "POST /api/inbox/:id{[0-9]{1,15}}/dismiss",
      "POST /api/inbox/:id{[0-9]{1,15}}/high-risk-confirm",
      "POST /api/inbox/:id{[0-9]{1,15}}/push-action",
      "POST /api/push/subscribe",
      "POST /api/push/unsubscribe",
      "PUT /api/governor",
      "POST /api/recipes/:id{[a-z][a-z0-9-]{0,63}}/enable",
      "POST /api/recipes/:id{[a-z][a-z0-9-]{0,63}}/preview",
      "PUT /api/recipes/triggers/:id{[0-9]{1,15}}",
    ]
  ) {
    assert.ok(paths.has(expected), `route ${expected} not registered`);
  }
  const variants: [string, HeadersInit][] = [
    ["no token at all", {}],
    ["cookie but no header", { Cookie: `${CSRF_COOKIE}=${TEST_CSRF_TOKEN}` }],
    ["header but no cookie", { [CSRF_HEADER]: TEST_CSRF_TOKEN }],
    ["wrong header", {
      Cookie: `${CSRF_COOKIE}=${TEST_CSRF_TOKEN}`,
      [CSRF_HEADER]: "x".repeat(43),
    }],
    ["matching pair that is not the install token", {
      Cookie: `${CSRF_COOKIE}=${"y".repeat(43)}`,
      [CSRF_HEADER]: "y".repeat(43),
    }],
  ];
  for (const route of mutating) {
    const path = concrete(route.path);
    for (const [label, headers] of variants) {
      const res = await t.app.request(path, {
        method: route.method,
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ answer: "x", action: "approve" }),
      });
      assert.equal(res.status, 403, `${route.method} ${path} with ${label}: ${res.status}`);
      const body = await jsonOf(res);
      assert.equal(body.error.code, "csrf_failed");
    }
  }
  // Every exempt route exists (a renamed route must not leave a stale exemption behind).
  const all = new Set(t.app.routes.map((r) => `${r.method} ${r.path}`));
  for (const exempt of WEBHOOK_EXEMPT) assert.ok(all.has(exempt), `exempt route ${exempt} missing`);
  // Nothing happened: no job changed, no run queued, no audit row written.
  assert.equal(t.store.countJobs(), 1);
  assert.equal(t.store.getJob(1)!.enabled, true);
  assert.equal(t.store.listRuns(1).length, 0);
  assert.equal(t.store.listAudit().length, 0);
});

Deno.test("CSRF: the right token passes; GET hands out the HttpOnly SameSite=Strict cookie without re-minting", async () => {
  await using t = await makeTestOutpost();
  const res = await t.app.request("/api/jobs");
  const cookie = res.headers.get("set-cookie")!;
  assert.match(cookie, new RegExp(`^${CSRF_COOKIE}=${TEST_CSRF_TOKEN};`));
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  assert.match(cookie, /Path=\//);
  assert.doesNotMatch(cookie, /Secure/);
  // A browser that already holds the cookie gets no new one.
  const again = await t.app.request("/api/jobs", {
    headers: { Cookie: `${CSRF_COOKIE}=${TEST_CSRF_TOKEN}` },
  });
  assert.equal(again.headers.get("set-cookie"), null);
  const ok = await t.request("POST", "/api/jobs", jobInput());
  assert.equal(ok.status, 201);
});

Deno.test("CSRF: the cookie is Secure when the dashboard is served over https", async () => {
  await using t = await makeTestOutpost({ baseUrl: "https://outpost.example.org" });
  const res = await t.app.request("/api/jobs");
  assert.match(res.headers.get("set-cookie")!, /; Secure/);
});

Deno.test("CSRF: the machine door is not CSRF-gated (bearer instead) and sets no cookie", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const res = await t.app.request("/api/v1/jobs", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ prompt: "hello", workdir: TEST_WORKDIR }),
  });
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("set-cookie"), null);
});

Deno.test("CSRF: the webhook door is exempt only because it demands an HMAC: unsigned requests are 401 and set no cookie", async () => {
  await using t = await makeTestOutpost();
  for (const path of ["/hooks/github/1", "/hooks/github/999"]) {
    const res = await t.app.request(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-GitHub-Event": "issues" },
      body: "{}",
    });
    // No trigger 1 exists yet: 404; either way never 2xx without a valid signature.
    assert.ok(res.status === 401 || res.status === 404, `${path}: ${res.status}`);
    assert.equal(res.headers.get("set-cookie"), null);
  }
  // Any other path under /hooks/ matches no route.
  const other = await t.app.request("/hooks/other", { method: "POST", body: "{}" });
  assert.equal(other.status, 404);
  assert.equal(t.store.countJobs(), 0);
});
