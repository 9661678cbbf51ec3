// app.request() tests of the inbox item page: an open item with answer and dismiss, the hold
// note with Confirm until the hold's TTL passes (on the injected clock), a closed item read-only,
// and every user-controlled string escaped.

import assert from "node:assert/strict";
import { makeTestOutpost } from "../../tests/fakes/test_outpost.ts";
import {
  assertEscaped,
  finishedRun,
  get,
  HOSTILE,
  inboxItem,
  job,
} from "../../tests/fakes/page_fixtures.ts";

Deno.test("GET /inbox/<id>: the item with answer/dismiss; hold note with Confirm until the TTL passes", async () => {
  await using t = await makeTestOutpost({ holdTtlMs: 60_000 });
  const j = job(t);
  const run = await finishedRun(t, j.id, "needs_human");
  const item = inboxItem(t, j.id, run.id, [{
    kind: "approval",
    text: "Deploy to prod?",
    detail: "$ ./deploy.sh <prod>\n(in /srv/app)",
  }]);
  let page = await get(t, `/inbox/${item.id}`);
  assert.equal(page.status, 200);
  assert.match(page.html, /Deploy to prod\?/);
  // What approving lets happen, escaped, line breaks kept.
  assert.match(
    page.html,
    /<pre class="question-detail" tabindex="0">\$ \.\/deploy\.sh &lt;prod&gt;\n\(in \/srv\/app\)<\/pre>/,
  );
  assert.match(page.html, /data-risk="high"/);
  assert.match(page.html, /<form class="answer-form" data-action="answer" data-id="1">/);
  assert.match(page.html, /data-action="dismiss" data-id="1"/);
  assert.doesNotMatch(page.html, /data-hold="live"/);

  t.deps.inbox.hold(item.id, {
    verb: "approve",
    answer: "approved",
    sender: "@op:x.org",
    room: "!r:x.org",
  }, "@op:x.org");
  page = await get(t, `/inbox/${item.id}`);
  assert.match(page.html, /data-hold="live"/);
  assert.match(page.html, /data-action="confirm-hold" data-id="1"/);
  assert.match(page.html, /@op:x\.org/);
  // Who sent it, from which room, and when it expires.
  assert.match(
    page.html,
    /from chat room <span class="mono" data-hold-room[^>]*>!r:x\.org<\/span>/,
  );
  assert.match(page.html, /expires <time datetime="2026-03-02T09:01:00Z">/);
  // The run page shows the same note.
  const runHtml = (await get(t, `/runs/${j.id}/${run.id}`)).html;
  assert.match(runHtml, /data-action="confirm-hold"/);
  assert.match(runHtml, /data-hold-room[^>]*>!r:x\.org</);

  await t.clock.advance(59_000);
  assert.match((await get(t, `/inbox/${item.id}`)).html, /data-hold="live"/);
  await t.clock.advance(1_000);
  page = await get(t, `/inbox/${item.id}`);
  assert.doesNotMatch(page.html, /data-hold="live"/, "an expired hold reads as absent");
  assert.match(page.html, /data-action="dismiss"/, "the item itself stays open");
});

Deno.test("GET /inbox/<id> of a closed item is read-only", async () => {
  await using t = await makeTestOutpost();
  const j = job(t);
  const run = await finishedRun(t, j.id, "needs_human");
  const item = inboxItem(t, j.id, run.id, [{ kind: "question", text: "Which branch?" }]);
  t.store.answerInbox(item.id, HOSTILE, "chat");
  const { status, html } = await get(t, `/inbox/${item.id}`);
  assert.equal(status, 200);
  assert.match(html, /data-state="answered"/);
  assert.match(html, /Answered via chat/);
  assert.doesNotMatch(html, /answer-form/);
  assertEscaped(html);
});
