// Browser end-to-end, issue 37 §1: a DNS-rebinding page in real Chromium. The hostile page
// is served by a second local server under a made-up name, evil.test, on the outpost's own
// port; then the name points at 127.0.0.1 (--host-resolver-rules), so the page's scripts
// reach the outpost same-origin, exactly as after a rebinding. The first lookup, the one
// that fetched the page from the attacker, is played by a Playwright route that hands the
// page load to the hostile server; every later request of the page goes through Chromium's
// resolver to the outpost. The page must get neither the CSRF token nor a state change.
// (A hostile page under evil.test on another port would be another origin: the browser's
// same-origin policy alone keeps its reads out, and such a test would pass without the fix.
// Rebinding is dangerous precisely because the attacker's page sits on the outpost's port.)
//
// Chromium's Local Network Access check is switched off: it refuses a public page's fetches
// to loopback, but it is Chromium's alone (Firefox and Safari have none) and it does not
// apply when the attacker's first address is itself on the operator's network. The test is
// about the outpost's own defense, so it runs as the browsers without that check would.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

const HOSTILE_PAGE = `<!doctype html><title>cat pictures</title><script>
window.attack = async (job) => {
  const out = {};
  try {
    const res = await fetch("/");
    out.pageStatus = res.status;
    const html = await res.text();
    out.token = (/name="csrf-token" content="([^"]+)"/.exec(html) || [])[1] || null;
  } catch (e) { out.pageError = String(e); }
  const post = async (path, body) => {
    try {
      const res = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": out.token || "guess" },
        body: JSON.stringify(body),
      });
      return res.status;
    } catch (e) { return String(e); }
  };
  out.create = await post("/api/jobs", job);
  out.trigger = await post("/api/jobs/1/trigger", {});
  out.governor = await fetch("/api/governor", {
    method: "PUT",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": out.token || "guess" },
    body: "{}",
  }).then((r) => r.status, (e) => String(e));
  return out;
};
</script>`;

peerTest(
  "rebinding: a page under a name rebound to 127.0.0.1 reads no token and changes nothing",
  probes.chromium,
  async () => {
    const hostileHits: string[] = [];
    // The attacker's server, on its own port (a real one would sit on the outpost's port at
    // the attacker's address).
    await using hostile = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (req) => {
        hostileHits.push(new URL(req.url).pathname);
        return new Response(HOSTILE_PAGE, { headers: { "Content-Type": "text/html" } });
      },
    );
    await using d = await openDashboard({
      chromiumArgs: [
        "--host-resolver-rules=MAP evil.test 127.0.0.1",
        "--disable-features=LocalNetworkAccessChecks",
      ],
    });
    const port = new URL(d.base).port;
    const job = d.createJob({ name: "existing", prompt: "hello" });
    const evil = `http://evil.test:${port}`;
    // First resolution of evil.test: the attacker's server answers the page load.
    await d.context.route(`${evil}/cats`, async (route) => {
      const res = await fetch(`http://127.0.0.1:${hostile.addr.port}/cats`);
      await route.fulfill({
        status: res.status,
        headers: { "Content-Type": "text/html" },
        body: await res.text(),
      });
    });
    const jobBody = {
      name: "planted",
      prompt: "send me the key",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: d.workdir,
      base_url: "http://attacker.test/v1",
    };
    await d.page.goto(`${evil}/cats`);
    assert.deepEqual(hostileHits, ["/cats"], "the page came from the hostile server");
    type Attack = (job: unknown) => Promise<Record<string, unknown>>;
    const result = await d.page.evaluate(
      (job) => (globalThis as unknown as { attack: Attack }).attack(job),
      jobBody,
    );
    // The page's requests reached the outpost (not the hostile server) and were refused there.
    assert.deepEqual(hostileHits, ["/cats"]);
    assert.equal(result.pageStatus, 421, JSON.stringify(result));
    assert.equal(result.token, null, "no CSRF token reached the page");
    assert.equal(result.create, 421);
    assert.equal(result.trigger, 421);
    assert.equal(result.governor, 421);
    // Nothing changed: the one job the test made, no run, no audit row, no cookie for evil.test.
    assert.deepEqual(d.deps.store.listJobs().map((j) => j.name), ["existing"]);
    assert.equal(d.deps.store.listRuns(job.id).length, 0);
    assert.equal(d.deps.store.listAudit().length, 0);
    const cookies = await d.context.cookies(evil);
    assert.deepEqual(cookies, []);

    // The same browser at the outpost's own address gets the page and its token.
    await d.page.goto(`${d.base}/`);
    const token = await d.page.getAttribute('meta[name="csrf-token"]', "content");
    assert.ok(token && token.length >= 32);
  },
);
