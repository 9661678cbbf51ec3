// Browser end-to-end: the inbox in real Chromium against a real outpost running the fake
// agent. A needs-human run's question appears live, is answered in the Inbox card, and the
// resumed run is followed to ok; a live high-risk hold appears on /inbox/<id> and is
// confirmed there; an item is dismissed without resuming anything.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { type Dashboard, openDashboard } from "./dashboard_browser_kit.ts";

/** Triggers `job` and waits for its run to halt on a question; returns the run and item. */
async function halted(d: Dashboard, jobId: number) {
  const run = d.deps.scheduler.trigger(jobId);
  assert.equal(await d.runReaches(run.id, ["needs_human", "ok", "error"]), "needs_human");
  const item = d.deps.store.listInbox({ state: "open" }).find((i) => i.run_id === run.id);
  assert.ok(item, "the halted run opened an inbox item");
  return { run, item };
}

peerTest(
  "dashboard: answer a needs-human question and follow the resumed run",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "branch picker", prompt: "exit:2" });
    await page.goto("/");
    await page.locator("#card-inbox .empty").waitFor();

    // Trigger from the page; the question arrives in the Inbox card without a reload.
    await page.locator(`#job-${job.id} [data-action="trigger-job"]`).click();
    const card = page.locator("#card-inbox article.inbox-item");
    await card.waitFor();
    const itemId = Number(await card.getAttribute("data-inbox-id"));
    const item = d.deps.store.getInboxItem(itemId)!;
    assert.equal(await card.locator(".question-text").innerText(), "Which branch?");
    assert.equal(await card.locator("[data-risk]").getAttribute("data-risk"), "medium");
    await page.locator(`#job-${job.id} [data-status="needs_human"]`).waitFor();
    await page.locator('#inbox-counter [data-open-inbox="1"]').waitFor();
    await d.screenshot("landing_inbox_open");

    await card.locator("textarea").fill("use main");
    await card.locator('button[type="submit"]').click();
    const link = page.locator("#toast a", { hasText: "Open run" });
    await link.waitFor();
    await page.locator("#card-inbox .empty").waitFor();
    const answered = d.deps.store.getInboxItem(itemId)!;
    assert.equal(answered.state, "answered");
    assert.equal(answered.answer, "use main");
    assert.equal(answered.answered_via, "dashboard");

    await link.click();
    const resumed = d.deps.store.latestRun(job.id)!;
    assert.equal(resumed.resume_of_run, item.run_id);
    await page.waitForURL(`**/runs/${job.id}/${resumed.id}`);
    await page.locator('.run-detail[data-run-status="ok"]').waitFor();
    const report = await page.locator("#report").innerText();
    assert.match(report, /prompt: use main/);
    assert.match(report, /resume: sess-\d+/);
    assert.match(
      await page.locator(".run-detail").innerText(),
      new RegExp(`Resumes\\s+run ${item.run_id}`, "i"),
    );
    await d.screenshot("run_resumed");

    // The halted run's page shows the answered item.
    await page.goto(`/runs/${job.id}/${item.run_id}`);
    assert.equal(await page.locator('[data-fact="status"]').innerText(), "needs_human");
    assert.equal(await page.locator(`#inbox-${itemId}`).getAttribute("data-state"), "answered");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: a live high-risk hold shows on /inbox/<id> and Confirm applies it",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "deploy approval", prompt: "exit:2 kind:approval" });
    const { item } = await halted(d, job.id);

    await page.goto(`/inbox/${item.id}`);
    const view = page.locator(`#inbox-${item.id}`);
    assert.equal(await view.locator("[data-risk]").getAttribute("data-risk"), "high");
    assert.equal(await page.locator('[data-hold="live"]').count(), 0);

    // A chat operator's high-risk approve is held; the page shows it live.
    d.deps.inbox.hold(item.id, {
      verb: "approve",
      answer: "approved: ship it",
      sender: "@ops:example.org",
      room: "!ops:example.org",
    }, "@ops:example.org");
    const note = page.locator('[data-hold="live"]');
    await note.waitFor();
    assert.match(await note.innerText(), /@ops:example\.org/);
    assert.match(await note.innerText(), /approved: ship it/);
    await d.screenshot("inbox_hold");

    await note.locator('[data-action="confirm-hold"]').click();
    await page.locator(`#inbox-${item.id}[data-state="answered"]`).waitFor();
    const done = d.deps.store.getInboxItem(item.id)!;
    assert.equal(done.answer, "approved: ship it");
    assert.equal(done.answered_via, "dashboard-high-risk-confirm");
    assert.equal(done.held_json, null);
    const resumed = d.deps.store.latestRun(job.id)!;
    assert.equal(resumed.resume_of_run, item.run_id);
    assert.equal(await d.runReaches(resumed.id, ["ok", "error"]), "ok");
    await d.screenshot("inbox_answered");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest("dashboard: dismiss an item; nothing resumes", probes.chromium, async () => {
  await using d = await openDashboard();
  const { page } = d;
  const job = d.createJob({ name: "optional question", prompt: "exit:2" });
  const { run, item } = await halted(d, job.id);
  await page.goto("/");
  const close = page.locator(`#inbox-${item.id} [data-action="dismiss"]`);
  // Named apart from an agent's "dismiss" answer, and confirmed: declining keeps it open.
  assert.equal(await close.innerText(), "Close without answering");
  d.confirmAnswer = "dismiss";
  await close.click();
  const [asked] = await d.waitForDialogs(1);
  assert.match(asked!.message, /without answering\? The run stays stopped/);
  assert.equal(d.deps.store.getInboxItem(item.id)!.state, "open");
  d.confirmAnswer = "accept";
  await close.click();
  await d.waitForDialogs(2);
  await page.locator("#card-inbox .empty").waitFor();
  assert.equal(d.deps.store.getInboxItem(item.id)!.state, "dismissed");
  assert.equal(d.deps.store.latestRun(job.id)!.id, run.id, "no resume run");
  // A closed item's deep link still opens, read-only.
  await page.goto(`/inbox/${item.id}`);
  assert.match(await page.locator(".closed-note").innerText(), /Dismissed via dashboard/);
  assert.equal(await page.locator("form.answer-form").count(), 0);
  await page.goto("/inbox/999999");
  assert.equal(await page.locator("#nf-title").innerText(), "Not found");
  await d.screenshot("not_found");
  assert.deepEqual(d.pageErrors, []);
});

peerTest(
  "dashboard: a held publication shows redacted, with Release and Drop; release publishes the original",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "deploy notes", prompt: "exit:2" });
    const { run } = await halted(d, job.id);
    const token = "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";
    const released: unknown[] = [];
    d.deps.publishGate.register("chat", (payload) => {
      released.push(payload);
      return Promise.resolve();
    });
    await page.goto("/");
    // The card must arrive live: hold only once the event stream is open (as the jobs test does).
    await page.locator('body[data-live="sse"]').waitFor({ state: "attached" });
    const hold = (text: string) =>
      d.deps.publishGate.screen({
        surface: "chat",
        where: "room !ops:test",
        job_id: job.id,
        run_id: run.id,
        text,
        payload: { room: "!ops:test", text },
      });
    const first = await hold(`Deployed with ${token}`);
    assert.equal(first.kind, "held");
    const item = first.kind === "held" ? first.item! : null;
    // It arrives live, redacted, with its two buttons and no answer form.
    const card = page.locator(`#inbox-${item!.id}`);
    await card.locator('[data-publish-hold="chat"]').waitFor();
    assert.match(await card.locator(".question-detail").innerText(), /\[redacted github\]/);
    assert.ok(!(await page.content()).includes(token), "the page never holds the token");
    assert.equal(await card.locator("form.answer-form").count(), 0);
    await d.screenshot("inbox_publish_hold");

    await card.locator('[data-action="release-held"]').click();
    await page.locator(`#inbox-${item!.id}`).waitFor({ state: "detached" });
    assert.equal(d.dialogs.at(-1)?.type, "confirm", "release asks first");
    assert.deepEqual(released, [{ room: "!ops:test", text: `Deployed with ${token}` }]);
    assert.equal(d.deps.store.getInboxItem(item!.id)!.state, "answered");

    const second = await hold(`Again ${token}`);
    const dropId = second.kind === "held" ? second.item!.id : 0;
    await page.locator(`#inbox-${dropId} [data-action="drop-held"]`).click();
    await page.locator(`#inbox-${dropId}`).waitFor({ state: "detached" });
    assert.equal(d.deps.store.getInboxItem(dropId)!.state, "dismissed");
    assert.equal(released.length, 1, "a dropped publication is not sent");
    assert.deepEqual(d.pageErrors, []);
  },
);
