// The Host allowlist and the same-origin rule of mutating requests (issue 37 §1, DNS
// rebinding), first as tables over the rule functions, then through the app: a request
// addressed to a name the outpost does not serve gets 421 and nothing else; a mutating
// request a browser sent from another origin gets 403 on every door and changes nothing.

import assert from "node:assert/strict";
import { githubSignature } from "../../core/recipes/trigger_secret.ts";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf, makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";
import {
  crossOriginRefusal,
  normalizeHost,
  parseAllowedHosts,
  servedHosts,
} from "./served_hosts.ts";

const LISTEN = { hostname: "127.0.0.1", port: 7317 };

Deno.test("served names: the bound address and loopback names with the port, the base URL's host, the proxy names", () => {
  const hosts = servedHosts({
    listen: LISTEN,
    baseUrl: "https://outpost.example.org",
    allowed: parseAllowedHosts(" Proxy.Example.net ,outpost.lan:8443,"),
  });
  const table: Array<[string, boolean]> = [
    ["127.0.0.1:7317", true],
    ["localhost:7317", true],
    ["LOCALHOST:7317", true],
    ["localhost.:7317", true],
    ["[::1]:7317", true],
    ["outpost.example.org", true],
    ["outpost.example.org:443", true],
    ["proxy.example.net", true],
    ["outpost.lan:8443", true],
    ["localhost", false],
    ["127.0.0.1:7318", false],
    ["evil.example:7317", false],
    ["evil.example", false],
    ["outpost.example.org:7317", false],
    ["outpost.lan", false],
    ["127.0.0.1:7317@evil", false],
    ["", false],
  ];
  for (const [host, served] of table) {
    const normal = normalizeHost(host);
    assert.equal(normal !== null && hosts.has(normal), served, host);
  }
});

Deno.test("served names: a wildcard bind serves its printed address and the loopback names; an IPv6 bind is bracketed", () => {
  const wild = servedHosts({ listen: { hostname: "0.0.0.0", port: 80 }, baseUrl: "", allowed: [] });
  assert.deepEqual([...wild].sort(), ["0.0.0.0", "127.0.0.1", "[::1]", "localhost"]);
  const v6 = servedHosts({ listen: { hostname: "::1", port: 9000 }, baseUrl: "", allowed: [] });
  assert.ok(v6.has("[::1]:9000"));
});

Deno.test("AGENT_OUTPOST_ALLOWED_HOSTS: a URL, a path or a stray character is refused naming the entry", () => {
  for (const bad of ["https://outpost.example.org", "outpost.example.org/x", "a b", "host:port"]) {
    assert.throws(() => parseAllowedHosts(`ok.example, ${bad}`), (e: Error) => {
      assert.match(e.message, /^AGENT_OUTPOST_ALLOWED_HOSTS: /);
      assert.ok(e.message.includes(JSON.stringify(bad)), e.message);
      return true;
    });
  }
  assert.deepEqual(parseAllowedHosts(undefined), []);
});

Deno.test("same-origin rule: Origin must be a served name, Sec-Fetch-Site same-origin or none; neither header passes", () => {
  const served = servedHosts({
    listen: LISTEN,
    baseUrl: "https://outpost.example.org",
    allowed: [],
  });
  const table: Array<[string | undefined, string | undefined, boolean]> = [
    [undefined, undefined, true],
    ["http://127.0.0.1:7317", "same-origin", true],
    ["http://localhost:7317", undefined, true],
    ["https://outpost.example.org", "same-origin", true],
    [undefined, "none", true],
    ["http://evil.test:7317", "same-origin", false],
    ["http://evil.test:7317", undefined, false],
    ["null", undefined, false],
    ["file://", undefined, false],
    ["http://127.0.0.1:7318", undefined, false],
    [undefined, "cross-site", false],
    [undefined, "same-site", false],
    ["http://127.0.0.1:7317", "cross-site", false],
  ];
  for (const [origin, site, passes] of table) {
    const why = crossOriginRefusal(served, origin, site);
    assert.equal(why === null, passes, `${origin} / ${site}: ${why}`);
  }
});

Deno.test("Host check: every registered route but GET /healthz answers 421 under another name", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const concrete = (pattern: string) =>
    pattern.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, "1").replace(/\*$/, "x");
  const routes = t.app.routes.filter((r) => r.method !== "ALL");
  assert.ok(routes.length > 40, `only ${routes.length} routes seen`);
  for (const route of routes) {
    const path = concrete(route.path);
    const res = await t.request(route.method, path, route.method === "GET" ? undefined : {}, {
      Host: "evil.test",
      Authorization: `Bearer ${token}`,
    });
    const exempt = route.method === "GET" && route.path === "/healthz";
    assert.equal(res.status === 421, !exempt, `${route.method} ${path}: ${res.status}`);
    await res.body?.cancel();
  }
  assert.equal(t.store.countJobs(), 0);
  assert.equal(t.store.listAudit().length, 0);
});

async function hostile(t: TestOutpost, path: string, headers: Record<string, string>) {
  return await t.app.request(path, { headers });
}

Deno.test("Host check: another name gets 421 with one plain line on pages, API, machine door and webhooks; /healthz answers", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  for (const path of ["/", "/api/jobs", "/api/v1/jobs", "/runs", "/hooks/github/1", "/nowhere"]) {
    const res = await hostile(t, path, {
      Host: "evil.test:7317",
      Authorization: `Bearer ${token}`,
    });
    assert.equal(res.status, 421, path);
    const text = await res.text();
    assert.match(
      text,
      /^misdirected request: .*"evil\.test:7317".*AGENT_OUTPOST_ALLOWED_HOSTS\)\n$/,
    );
    assert.equal(text.split("\n").length, 2, "one line");
    assert.doesNotMatch(text, /csrf/i);
    assert.equal(res.headers.get("set-cookie"), null, `${path}: no CSRF cookie handed out`);
  }
  // A mutation under another name changes nothing, even with the right CSRF pair.
  const post = await t.request("POST", "/api/jobs", jobInput(), { Host: "evil.test" });
  assert.equal(post.status, 421);
  assert.equal(t.store.countJobs(), 0);
  // The container's probe sends `Host: localhost` without the port.
  const health = await hostile(t, "/healthz", { Host: "anything.example:1" });
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { ok: true });
  // The served names answer.
  for (const host of ["127.0.0.1", "localhost", "[::1]", "127.0.0.1:7317"]) {
    const res = await hostile(t, "/api/jobs", { Host: host });
    assert.equal(res.status, 200, host);
  }
});

Deno.test("Host check: a reverse proxy's name is served once listed in AGENT_OUTPOST_ALLOWED_HOSTS", async () => {
  {
    await using t = await makeTestOutpost();
    const res = await hostile(t, "/", { Host: "outpost.internal" });
    assert.equal(res.status, 421);
  }
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_ALLOWED_HOSTS: "outpost.internal, other.internal:8443" },
  });
  assert.equal((await hostile(t, "/", { Host: "outpost.internal" })).status, 200);
  assert.equal((await hostile(t, "/", { Host: "other.internal:8443" })).status, 200);
  assert.equal((await hostile(t, "/", { Host: "other.internal" })).status, 421);
  const post = await t.request("POST", "/api/jobs", jobInput(), {
    Host: "outpost.internal",
    Origin: "https://outpost.internal",
    "Sec-Fetch-Site": "same-origin",
  });
  assert.equal(post.status, 201);
});

Deno.test("same-origin rule: a cross-site mutation with a valid CSRF pair is refused with 403 on every door, and nothing changes", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  // A checkout outside the agent home (a workdir inside it is refused, issue 37 §2).
  const wd = await Deno.realPath(await Deno.makeTempDir({ prefix: "served_hosts_checkout_" }));
  const enabled = await t.request("POST", "/api/recipes/issue-triage/enable", {
    config: { workdir: wd, repo: "acme/widgets" },
  });
  assert.equal(enabled.status, 201);
  const { trigger, secret } = await jsonOf(enabled);
  const jobsBefore = t.store.countJobs();
  const auditBefore = t.store.listAudit().length;
  const crossSite = [
    { Origin: "http://evil.test:7317", "Sec-Fetch-Site": "cross-site" },
    { Origin: "http://evil.test:7317" },
    { "Sec-Fetch-Site": "same-site" },
  ];
  const body = JSON.stringify({
    action: "opened",
    issue: {
      number: 1,
      title: "t",
      body: "b",
      html_url: "https://github.com/acme/widgets/issues/1",
    },
    repository: { full_name: "acme/widgets" },
  });
  for (const headers of crossSite) {
    const human = await t.request("POST", "/api/jobs", jobInput(), headers);
    assert.equal(human.status, 403);
    const err = (await jsonOf(human)).error;
    assert.equal(err.code, "cross_origin_refused");
    assert.doesNotMatch(err.message, /\n/);
    const machine = await t.app.request("/api/v1/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ prompt: "hello", workdir: "/tmp" }),
    });
    assert.equal(machine.status, 403);
    const hook = await t.app.request(`/hooks/github/${trigger.id}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-GitHub-Event": "issues",
        "X-GitHub-Delivery": crypto.randomUUID(),
        "X-Hub-Signature-256": githubSignature(secret, body),
        ...headers,
      },
      body,
    });
    assert.equal(hook.status, 403);
  }
  assert.equal(t.store.countJobs(), jobsBefore);
  assert.equal(t.store.listAudit().length, auditBefore);
  // Programs send neither header: the machine door's bearer and the webhook's HMAC still do.
  const machine = await t.app.request("/api/v1/jobs", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ prompt: "hello", workdir: wd }),
  });
  assert.equal(machine.status, 202);
  // The dashboard's own same-origin fetch passes.
  const own = await t.request("POST", "/api/jobs", jobInput({ name: "own" }), {
    Host: "127.0.0.1",
    Origin: "http://127.0.0.1",
    "Sec-Fetch-Site": "same-origin",
  });
  assert.equal(own.status, 201);
});
