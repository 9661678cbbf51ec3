// app.request() tests of empty lists: each landing card, /runs, /audit and a job without runs
// says what to do next instead of showing an empty table.

import assert from "node:assert/strict";
import { makeTestOutpost } from "../../tests/fakes/test_outpost.ts";
import { get, job } from "../../tests/fakes/page_fixtures.ts";

function card(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  assert.ok(start >= 0, `missing ${id}`);
  return html.slice(start, html.indexOf("</section>", start));
}

/** The text an empty list shows: a `class="empty"` paragraph, tags stripped. */
function emptyTexts(html: string): string[] {
  return [...html.matchAll(/<p class="empty"[^>]*>([\s\S]*?)<\/p>/g)].map((m) =>
    (m[1] ?? "").replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim()
  );
}

Deno.test("empty lists say what to do: landing cards, /runs, /audit and a job without runs", async () => {
  await using t = await makeTestOutpost();
  const landing = (await get(t, "/")).html;
  assert.deepEqual(emptyTexts(card(landing, "card-jobs")), [
    "No jobs yet. Create one with the form below.",
  ]);
  assert.deepEqual(emptyTexts(card(landing, "card-runs")), [
    "No runs yet. Create a job below, then press Run now to try it.",
  ]);
  assert.deepEqual(emptyTexts(card(landing, "card-memory")), [
    "No memory files yet. The agent saves here what later runs should know; nothing to do until it does.",
  ]);
  assert.deepEqual(emptyTexts(card(landing, "card-inbox")), [
    "Nothing needs you right now. Runs that stop on a question or an approval land here.",
  ]);

  const runs = await get(t, "/runs");
  assert.equal(runs.status, 200);
  assert.deepEqual(emptyTexts(card(runs.html, "card-history")), [
    "No runs yet. Create a job on the dashboard and press Run now.",
  ]);
  const audit = await get(t, "/audit");
  assert.equal(audit.status, 200);
  assert.deepEqual(emptyTexts(card(audit.html, "card-audit")), [
    "Nothing audited yet. Changes to jobs, answers, memory reads and governor edits appear here.",
  ]);

  // A job that has never run: the strip and the runs list both say so.
  const j = job(t);
  const page = await get(t, `/jobs/${j.id}`);
  assert.equal(page.status, 200);
  assert.deepEqual(emptyTexts(page.html.slice(0, page.html.indexOf('id="card-history"'))), [
    "No runs yet. Press Run now to start one.",
  ]);
  assert.deepEqual(emptyTexts(card(page.html, "card-history")), [
    "No runs yet. Press Run now to start one.",
  ]);
  assert.match(page.html, /data-testid="next-fires"/);

  // A one-shot job that has fired has nothing left to fire; a disabled one says why.
  const once = job(t, { name: "once", schedule: { kind: "at", expr: "2026-03-02T10:00:00Z" } });
  t.clock.set("2026-03-02T11:00:00Z");
  await t.scheduler.tick();
  assert.equal(t.store.getJob(once.id)?.next_run_at, null);
  assert.ok(emptyTexts((await get(t, `/jobs/${once.id}`)).html).includes("Nothing left to fire."));
  const off = job(t, { name: "off" });
  await t.scheduler.updateJob(off.id, { enabled: false });
  assert.ok(
    emptyTexts((await get(t, `/jobs/${off.id}`)).html).includes(
      "The job is disabled: it does not fire. Enable it on the dashboard.",
    ),
  );
});
