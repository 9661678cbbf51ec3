// The Jobs card stays bounded however big the jobs are: the landing page renders the newest
// JOBS_PER_PAGE jobs with a link to older pages (/jobs?before=<id>), and no job's prompt is
// carried in the page (Edit fetches GET /api/jobs/<id>).

import assert from "node:assert/strict";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { PROMPT_MAX } from "../../core/scheduler/job_input.ts";
import { makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";
import { JOBS_PER_PAGE } from "../views/jobs_card.tsx";

/** The landing page of an outpost full of jobs with the longest prompts stays under this. */
const LANDING_MAX_BYTES = 300 * 1024;

function fill(t: TestOutpost, n: number) {
  return Array.from({ length: n }, (_, i) =>
    t.scheduler.createJob({
      name: `job ${String(i).padStart(3, "0")} ${"n".repeat(150)}`,
      // Each prompt ends with a marker the page must never contain.
      prompt: `${"p".repeat(PROMPT_MAX - 12)}END-OF-${String(i).padStart(5, "0")}`,
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: TEST_WORKDIR,
    }));
}

const rowIds = (html: string) =>
  [...html.matchAll(/<li class="row job" id="job-(\d+)"/g)].map((m) => Number(m[1]));

Deno.test("the landing page with 100 jobs of 32,000-char prompts stays under 300 KB and carries no prompt", async () => {
  await using t = await makeTestOutpost();
  const jobs = fill(t, 100);
  const res = await t.app.request("/");
  assert.equal(res.status, 200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const html = new TextDecoder().decode(bytes);
  assert.ok(bytes.length < LANDING_MAX_BYTES, `landing page is ${bytes.length} bytes`);
  assert.doesNotMatch(html, /END-OF-\d{5}|p{100}/, "no prompt text in the page");
  // The newest page of jobs, newest first, and the way to the rest.
  const newest = jobs.slice(-JOBS_PER_PAGE).map((j) => j.id).reverse();
  assert.deepEqual(rowIds(html), newest);
  assert.match(
    html,
    new RegExp(`<a href="/jobs\\?before=${newest.at(-1)}" rel="next">Older jobs</a>`),
  );
  // The live region re-fetches the same page.
  const partial = await (await t.app.request("/partials/jobs")).text();
  assert.deepEqual(rowIds(partial), newest);
  assert.doesNotMatch(partial, /END-OF-/);
});

Deno.test("GET /jobs?before=<id> pages through the older jobs, with the form and its own live region", async () => {
  await using t = await makeTestOutpost();
  const jobs = fill(t, 70).map((j) => j.id).reverse(); // newest first
  const before = jobs[JOBS_PER_PAGE - 1]!;
  const res = await t.app.request(`/jobs?before=${before}`);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.deepEqual(rowIds(html), jobs.slice(JOBS_PER_PAGE));
  assert.match(html, /<body data-page="jobs">/);
  assert.match(html, /id="job-form"/, "Edit works on an older page too");
  assert.match(html, new RegExp(`data-live="jobs" data-src="/partials/jobs\\?before=${before}"`));
  assert.match(html, /<a href="\/#card-jobs">Newest jobs<\/a>/);
  assert.doesNotMatch(html, /Older jobs/, "the last page links no further");
  assert.doesNotMatch(html, /END-OF-/);
  const partial = await (await t.app.request(`/partials/jobs?before=${before}`)).text();
  assert.deepEqual(rowIds(partial), jobs.slice(JOBS_PER_PAGE));
  // A malformed `before` is the newest page, never an error.
  assert.deepEqual(rowIds(await (await t.app.request("/jobs?before=x")).text()), jobs.slice(0, 50));
  // With few jobs there is nothing to page through.
  await using small = await makeTestOutpost();
  fill(small, 3);
  assert.doesNotMatch(await (await small.app.request("/")).text(), /Older jobs|Newest jobs/);
});

Deno.test("GET /api/jobs/<id> gives the edit form the whole job, prompt included", async () => {
  await using t = await makeTestOutpost();
  const [job] = fill(t, 1);
  const res = await t.app.request(`/api/jobs/${job!.id}`);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.job.prompt.length, PROMPT_MAX);
  for (
    const field of ["name", "schedule", "workdir", "mode", "timeout_s", "max_retries", "recipe_id"]
  ) {
    assert.ok(field in body.job, field);
  }
});
