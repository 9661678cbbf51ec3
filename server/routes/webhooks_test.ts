// The webhook door of issue-triage, tried as an attacker would: forged signatures, replays
// (same delivery id, or a captured body with a new one), a 10 MB payload, other events, a
// disabled trigger, another repository, a flood. Each is refused with a clear status, fires
// nothing and is on the audit trail (a flood as a first row plus a count). A good delivery
// fires one api-class one-shot, and its answer is posted through the github_pr_comment surface.

import assert from "node:assert/strict";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { join } from "node:path";
import { githubSignature } from "../../core/recipes/trigger_secret.ts";
import { FakeGithubApi } from "../../tests/fakes/github_api.ts";
import {
  deliverGithubEvent,
  type Delivery,
  enableIssueTriage,
  issueOpenedPayload,
} from "../../tests/fakes/github_webhook.ts";
import { jsonOf, makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

const TOKEN = "ghp_test_token_never_stored_0123456789";

function refusals(t: TestOutpost): string[] {
  return t.store.listAudit({ action: "webhook_refused" }).map((r) => r.detail);
}

Deno.test("a signed issue-opened delivery fires one api-class one-shot stamped with the recipe", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const res = await deliverGithubEvent(t, id, { secret, delivery: "d-1" });
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("set-cookie"), null);
  const { fired } = await jsonOf(res);
  const job = t.store.getJob(fired.job_id)!;
  assert.equal(job.class, "api");
  assert.equal(job.recipe_id, "issue-triage");
  assert.equal(job.recipe_version, 1);
  assert.equal(job.mode, "strict");
  assert.equal(job.name, "Issue triage #42");
  assert.deepEqual(job.meta.github, { repo: "acme/widgets", issue_number: 42 });
  assert.equal(job.meta.surface, "github_pr_comment");
  const trigger = t.store.triggers.get(id)!;
  assert.ok(job.prompt.startsWith(trigger.prompt), "the frozen prompt comes first");
  assert.match(job.prompt, /BEGIN ISSUE \(untrusted text/);
  assert.match(job.prompt, /Ignore previous instructions/);
  assert.equal(t.store.getRun(fired.run_id)!.status, "queued");
  assert.equal(t.store.listAudit({ action: "webhook_fire" }).length, 1);
});

Deno.test("refused deliveries: each has a clear status, fires nothing and writes an audit row", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const huge = new Uint8Array(10 * 1024 * 1024).fill(0x20);
  const cases: Array<[string, Delivery, number, string]> = [
    ["no signature", { signature: null }, 401, "bad_signature"],
    ["forged signature", { secret: "not-the-secret" }, 401, "bad_signature"],
    [
      "signature of another body",
      {
        signature: githubSignature(secret, "{}"),
      },
      401,
      "bad_signature",
    ],
    ["malformed signature", { signature: "sha1=abc" }, 401, "bad_signature"],
    ["10 MB payload", { body: huge, secret }, 413, "payload_too_large"],
    ["push event", { secret, event: "push" }, 422, "event_not_accepted"],
    [
      "issue edited",
      {
        secret,
        body: JSON.stringify(issueOpenedPayload({}, { action: "edited" })),
      },
      422,
      "event_not_accepted",
    ],
    [
      "another repository",
      {
        secret,
        body: JSON.stringify(issueOpenedPayload({}, { repository: { full_name: "evil/fork" } })),
      },
      422,
      "wrong_repository",
    ],
    ["no delivery id", { secret, delivery: null }, 400, "bad_delivery_id"],
    ["not JSON", { secret, body: "not json" }, 400, "invalid_json"],
    ["unknown trigger", { secret, path: `/hooks/github/${id + 1}` }, 404, "not_found"],
  ];
  for (const [label, d, status, code] of cases) {
    await t.clock.advance(61_000); // each its own minute: a repeat within one is only counted
    const before = refusals(t).length;
    const res = await deliverGithubEvent(t, id, d);
    assert.equal(res.status, status, label);
    assert.equal((await jsonOf(res)).error.code, code, label);
    assert.equal(refusals(t).length, before + 1, `${label}: one audit row`);
  }
  assert.equal(t.store.countJobs(), 0, "nothing fired");
  assert.equal(t.store.countQueued(), 0);
});

Deno.test("a 10 MB body sent without Content-Length is cut off at the cap, not buffered", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= 10 * 1024 * 1024) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const res = await t.app.request(`/hooks/github/${id}`, {
    method: "POST",
    headers: {
      "X-GitHub-Event": "issues",
      "X-GitHub-Delivery": "big",
      "X-Hub-Signature-256": githubSignature(secret, "x"),
    },
    body: stream,
    // deno-lint-ignore no-explicit-any
    duplex: "half" as any,
  } as RequestInit);
  assert.equal(res.status, 413);
  assert.ok(sent < 2 * 1024 * 1024, `read stopped near the 1 MiB cap (pulled ${sent} bytes)`);
  assert.equal(t.store.countJobs(), 0);
});

Deno.test("a replayed delivery (same id and body) is answered 200 duplicate and fires nothing more", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const first = await deliverGithubEvent(t, id, { secret, delivery: "same-id" });
  assert.equal(first.status, 202);
  const { fired } = await jsonOf(first);
  const again = await deliverGithubEvent(t, id, { secret, delivery: "same-id" });
  assert.equal(again.status, 200);
  assert.deepEqual(await jsonOf(again), {
    duplicate: true,
    job_id: fired.job_id,
    first_delivery: "same-id",
    message: "this event already fired a run (a replay or a redelivery); nothing fired",
  });
  assert.equal(t.store.countJobs(), 1);
  assert.match(
    t.store.listAudit({ action: "webhook_duplicate" }).at(0)!.detail,
    /^delivery same-id: acme\/widgets#42 already fired \(delivery same-id, job \d+\); nothing fired/,
  );
});

Deno.test("replay: a captured body re-sent with a new X-GitHub-Delivery fires nothing", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const body = JSON.stringify(issueOpenedPayload());
  const first = await deliverGithubEvent(t, id, { secret, body, delivery: "d-original" });
  assert.equal(first.status, 202);
  const { fired } = await jsonOf(first);
  for (const delivery of ["d-replay-1", "d-replay-2", crypto.randomUUID()]) {
    await t.clock.advance(3_600_000); // hours later, still inside the 72-hour window
    const res = await deliverGithubEvent(t, id, { secret, body, delivery });
    assert.equal(res.status, 200, delivery);
    const answer = await jsonOf(res);
    assert.equal(answer.duplicate, true);
    assert.equal(answer.job_id, fired.job_id);
    assert.equal(answer.first_delivery, "d-original");
  }
  assert.equal(t.store.countJobs(), 1, "the replays fired nothing");
  assert.equal(t.store.countQueued(), 1);
  // The same issue changed since (a new updated_at) is a new event.
  const edited = issueOpenedPayload();
  (edited.issue as Record<string, unknown>).updated_at = "2026-03-02T11:30:00Z";
  const later = await deliverGithubEvent(t, id, { secret, body: JSON.stringify(edited) });
  assert.equal(later.status, 202);
  assert.equal(t.store.countJobs(), 2);
});

Deno.test("replay: an event older than the window is refused as stale; one without updated_at as a bad payload", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const body = JSON.stringify(issueOpenedPayload());
  await t.clock.advance(72 * 3_600_000 + 60_000); // updated_at is now 72 h 1 min 30 s old
  const stale = await deliverGithubEvent(t, id, { secret, body });
  assert.equal(stale.status, 422);
  const { error } = await jsonOf(stale);
  assert.equal(error.code, "stale_event");
  assert.match(
    error.message,
    /more than 72 hours old: an event that old cannot be told from a replay/,
  );
  const bare = issueOpenedPayload();
  delete (bare.issue as Record<string, unknown>).updated_at;
  const res = await deliverGithubEvent(t, id, { secret, body: JSON.stringify(bare) });
  assert.equal(res.status, 422);
  assert.match((await jsonOf(res)).error.message, /issue\.updated_at is missing/);
  assert.equal(t.store.countJobs(), 0);
});

Deno.test("flood: 2,300 refused requests from one address write a bounded number of audit rows that carry the count", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const N = 2300;
  const statuses = new Map<number, number>();
  for (let i = 0; i < N; i++) {
    const res = await deliverGithubEvent(t, id, { secret: "forged", from: "198.51.100.7" });
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    await res.body?.cancel();
  }
  // The first 120 a minute reach the signature check; the rest are turned away before it.
  assert.deepEqual([...statuses], [[401, 120], [429, N - 120]]);
  // Another address is not held by the first one's limit.
  assert.equal(
    (await deliverGithubEvent(t, id, { secret: "forged", from: "203.0.113.9" })).status,
    401,
  );
  const during = refusals(t);
  assert.equal(during.length, 3, during.join("\n")); // the first of each burst, at once
  assert.match(
    during.at(-1)!,
    /^401 bad_signature \(delivery [\w-]+\): .* \[from addr:198\.51\.100\.7\]$/,
  );
  assert.match(during.at(-2)!, /^429 rate_limited .* \[from addr:198\.51\.100\.7\]$/);

  await t.clock.advance(60_000); // the minute is over: the counts are written
  const rows = refusals(t);
  assert.equal(rows.length, 5, rows.join("\n"));
  const counted = (reason: string) =>
    Number(
      rows.map((r) =>
        new RegExp(`^(\\d+) more ${reason} from addr:198\\.51\\.100\\.7 in the minute after`).exec(
          r,
        )
      )
        .find((m) => m)?.[1],
    );
  assert.equal(counted("bad_signature"), 119);
  assert.equal(counted("rate_limited"), N - 120 - 1);
  assert.equal(t.store.countJobs(), 0);

  // After the minute the address may try again; a signed delivery from it fires.
  assert.equal((await deliverGithubEvent(t, id, { secret, from: "198.51.100.7" })).status, 202);
});

Deno.test("a disabled trigger refuses deliveries with 409 trigger_disabled; a ping answers 200", async () => {
  await using t = await makeTestOutpost();
  const { id, secret } = await enableIssueTriage(t);
  const from = (n: number) => `192.0.2.${n}`; // each refusal its own sender: each its own row
  const ping = await deliverGithubEvent(t, id, { secret, event: "ping", body: '{"zen":"x"}' });
  assert.equal(ping.status, 200);
  // The ping is GitHub's set-up handshake: answered, fired nothing, and on the trail.
  assert.deepEqual(refusals(t).map((r) => r.replace(/delivery \S+/, "delivery D")), [
    "ping delivery D answered; nothing fired [from addr:192.0.2.1]",
  ]);
  await t.request("PUT", `/api/recipes/triggers/${id}`, { enabled: false });
  const res = await deliverGithubEvent(t, id, { secret, delivery: "d-off", from: from(2) });
  assert.equal(res.status, 409);
  assert.equal((await jsonOf(res)).error.code, "trigger_disabled");
  // A forged delivery to a disabled trigger learns nothing about its state.
  assert.equal(
    (await deliverGithubEvent(t, id, { secret: "guess", delivery: "d-forged", from: from(3) }))
      .status,
    401,
  );
  assert.equal(t.store.countJobs(), 0);
  // Each refusal is on the trail: the disabled one with its reason, the forged one as a bad
  // signature (not as disabled).
  const rows = refusals(t);
  assert.equal(rows.length, 3);
  assert.ok(
    rows.some((r) =>
      /^409 trigger_disabled \(delivery d-off\): trigger \d+ is disabled \(disabled by operator\)/
        .test(r)
    ),
    rows.join("\n"),
  );
  assert.ok(rows.some((r) => /^401 bad_signature \(delivery d-forged\)/.test(r)), rows.join("\n"));
  const refused = t.store.listAudit({ action: "webhook_refused" });
  assert.equal(refused.length, 3);
  assert.ok(refused.every((r) => r.target === `trigger:${id}`));
});

Deno.test("github_pr_comment: the run's final answer is posted to the issue with the token from the environment", async () => {
  await using github = new FakeGithubApi();
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_GITHUB_TOKEN: TOKEN, AGENT_OUTPOST_GITHUB_API_URL: github.url },
  });
  const { id, secret } = await enableIssueTriage(t);
  const { fired } = await jsonOf(await deliverGithubEvent(t, id, { secret, delivery: "d-ok" }));
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  assert.equal(
    child.req.env?.AGENT_OUTPOST_GITHUB_TOKEN,
    undefined,
    "the child never holds the token",
  );
  const report =
    `# Run report\n\n## Prompt\n\n\`\`\`text\n${child.prompt}\n## Final answer\n\nfake\n\`\`\`\n\n` +
    "## Final answer\n\nThis looks like a **bug** in the config loader.\n";
  await Deno.writeTextFile(child.arg("--output")!, report);
  const posted = github.nextRequest();
  child.exit(0, { outcome: "ok", exit_code: 0, final_text: "x", session_id: "s1" });
  await t.scheduler.whenSettled(fired.run_id);
  const req = await posted;
  await t.deps.githubComments.idle();
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/repos/acme/widgets/issues/42/comments");
  assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
  const comment = JSON.parse(req.body).body as string;
  assert.match(comment, /^This looks like a \*\*bug\*\* in the config loader\./);
  assert.doesNotMatch(comment, /BEGIN ISSUE|Ignore previous/, "no prompt text in the comment");
  assert.equal(t.store.listAudit({ action: "github_comment" }).length, 1);
  const stored = JSON.stringify([t.store.listJobs(), t.store.listAudit(), t.store.triggers.list()]);
  assert.ok(!stored.includes(TOKEN), "the token is stored nowhere");
});

Deno.test("github_pr_comment: a failed post is audited with the status, never the token", async () => {
  await using github = new FakeGithubApi();
  github.status = 403;
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_GITHUB_TOKEN: TOKEN, AGENT_OUTPOST_GITHUB_API_URL: github.url },
  });
  const { id, secret } = await enableIssueTriage(t);
  const { fired } = await jsonOf(await deliverGithubEvent(t, id, { secret }));
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  await Deno.writeTextFile(child.arg("--output")!, "# r\n\n## Final answer\n\nanswer\n");
  child.exit(0, { outcome: "ok", exit_code: 0, final_text: "answer", session_id: "s1" });
  await t.scheduler.whenSettled(fired.run_id);
  await t.deps.githubComments.idle();
  const [row] = t.store.listAudit({ action: "github_comment_failed" });
  assert.match(row!.detail, /answered 403/);
  assert.ok(!row!.detail.includes(TOKEN));
});

Deno.test("github_pr_comment: a machine-door one-shot with forged meta posts nothing", async () => {
  await using github = new FakeGithubApi();
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_GITHUB_TOKEN: TOKEN, AGENT_OUTPOST_GITHUB_API_URL: github.url },
  });
  const { id } = await enableIssueTriage(t);
  const res = await t.app.request("/api/v1/jobs", {
    method: "POST",
    headers: { Authorization: `Bearer ${t.machineToken()}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      name: "forged",
      prompt: "say something",
      workdir: TEST_WORKDIR,
      meta: {
        surface: "github_pr_comment",
        github: { repo: "acme/widgets", issue_number: 1 },
        trigger_id: id,
      },
    }),
  });
  assert.equal(res.status, 202);
  const { run_id } = await jsonOf(res);
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  await Deno.writeTextFile(child.arg("--output")!, "# r\n\n## Final answer\n\nspam\n");
  child.exit(0, { outcome: "ok", exit_code: 0, final_text: "spam", session_id: "s1" });
  assert.equal(await t.scheduler.whenSettled(run_id), "ok");
  await t.deps.githubComments.idle();
  assert.equal(github.requests.length, 0, "no recipe stamp, no comment");
  assert.equal(t.store.listAudit({ action: "github_comment" }).length, 0);
});

Deno.test("github_pr_comment: a report swapped for a symlink or a FIFO posts nothing and says why", async () => {
  await using github = new FakeGithubApi();
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_GITHUB_TOKEN: TOKEN, AGENT_OUTPOST_GITHUB_API_URL: github.url },
  });
  const { id, secret } = await enableIssueTriage(t);
  const outside = join(t.home, "outside.md");
  await Deno.writeTextFile(outside, "# other\n\n## Final answer\n\nSECRET from another file\n");
  const swaps: Array<(report: string) => Promise<void>> = [
    (report) => Deno.symlink(outside, report),
    async (report) => {
      const made = await new Deno.Command("mkfifo", { args: [report] }).output();
      assert.ok(made.success, "mkfifo");
    },
  ];
  for (const [i, swap] of swaps.entries()) {
    // Two events (the issue updated in between), or the second would be a replay of the first.
    const payload = issueOpenedPayload();
    (payload.issue as Record<string, unknown>).updated_at = `2026-03-02T08:5${i}:00Z`;
    const body = JSON.stringify(payload);
    const { fired } = await jsonOf(
      await deliverGithubEvent(t, id, { secret, body, delivery: `d-swap-${i}` }),
    );
    const spawned = t.spawner.nextSpawn();
    await t.scheduler.step();
    const child = await spawned;
    await swap(child.arg("--output")!);
    child.exit(0, { outcome: "ok", exit_code: 0, final_text: "x", session_id: `s${i}` });
    assert.equal(await t.scheduler.whenSettled(fired.run_id), "ok");
    await t.deps.githubComments.idle();
  }
  assert.equal(github.requests.length, 0, "nothing reached the code host");
  const failed = t.store.listAudit({ action: "github_comment_failed" });
  assert.equal(failed.length, 2);
  for (const row of failed) {
    assert.match(row.detail, /nothing posted to acme\/widgets#42: .*(symlink|regular file)/);
    assert.ok(!row.detail.includes("SECRET"));
  }
});
