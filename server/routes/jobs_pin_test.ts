// A job's fleet pin through the dashboard's doors (docs/fleet.md, "Pinning"): POST /api/jobs
// and PUT /api/jobs/<id> take `pin_label` (kept as meta.pin_label; null unpins), a bad label is
// refused with one error naming the field and changes nothing, the job page shows the pin, and
// the job form offers the field only on an outpost in a fleet. (In Chromium, on a real
// PostgreSQL fleet node: tests/e2e/dashboard_browser_pin_test.ts.)

import assert from "node:assert/strict";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf as json, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

Deno.test("pin_label round-trips through create, edit and unpin, and shows on the job page", async () => {
  await using t = await makeTestOutpost();
  const created = await t.request("POST", "/api/jobs", jobInput({ pin_label: "gpu" }));
  assert.equal(created.status, 201);
  const job = (await json(created)).job;
  assert.deepEqual(job.meta, { pin_label: "gpu" });
  const page = async () => await (await t.app.request(`/jobs/${job.id}`)).text();
  assert.match(
    await page(),
    /<dd data-setting="pin_label">nodes labelled <span class="mono">gpu<\/span><\/dd>/,
  );

  const moved = await t.request("PUT", `/api/jobs/${job.id}`, { pin_label: "big-disk.2" });
  assert.equal(moved.status, 200);
  assert.deepEqual((await json(moved)).job.meta, { pin_label: "big-disk.2" });
  assert.deepEqual(t.store.getJob(job.id)!.meta, { pin_label: "big-disk.2" });
  assert.match(await page(), /nodes labelled <span class="mono">big-disk\.2<\/span>/);

  // An edit that leaves the pin out keeps it.
  const renamed = await t.request("PUT", `/api/jobs/${job.id}`, { name: "renamed" });
  assert.deepEqual((await json(renamed)).job.meta, { pin_label: "big-disk.2" });

  const unpinned = await t.request("PUT", `/api/jobs/${job.id}`, { pin_label: null });
  assert.equal(unpinned.status, 200);
  assert.deepEqual((await json(unpinned)).job.meta, {});
  assert.doesNotMatch(await page(), /data-setting="pin_label"/);
});

Deno.test("a bad pin_label is refused naming the field, by create and by edit; nothing changes", async () => {
  await using t = await makeTestOutpost();
  for (const bad of ["gpu big", "", "a/b", "x".repeat(51), 7]) {
    const res = await t.request("POST", "/api/jobs", jobInput({ pin_label: bad }));
    assert.equal(res.status, 400, JSON.stringify(bad));
    const { error } = await json(res);
    assert.equal(error.field, "pin_label");
    assert.match(error.message, /^pin_label: a node label: 1 to 50 letters, digits/);
  }
  assert.equal(t.store.listJobs().length, 0, "no job stored by a refused create");

  const job = (await json(await t.request("POST", "/api/jobs", jobInput({ pin_label: "gpu" }))))
    .job;
  const res = await t.request("PUT", `/api/jobs/${job.id}`, {
    name: "changed",
    pin_label: "gpu big",
  });
  assert.equal(res.status, 400);
  assert.equal((await json(res)).error.field, "pin_label");
  const kept = t.store.getJob(job.id)!;
  assert.deepEqual(kept.meta, { pin_label: "gpu" });
  assert.equal(kept.name, job.name, "nothing of a refused edit is stored");
});

Deno.test("the job form offers the pin field only on an outpost in a fleet", async () => {
  await using t = await makeTestOutpost();
  const single = await (await t.app.request("/")).text();
  assert.match(single, /id="job-form"/);
  assert.doesNotMatch(single, /name="pin_label"/, "a single box has no pin field");
  // The page asks the fleet source which store it shares: a PostgreSQL one is a fleet.
  t.deps.fleet = { ...t.deps.fleet, store: "postgres" };
  for (const path of ["/", "/jobs?before=1"]) {
    const html = await (await t.app.request(path)).text();
    assert.match(html, /<label for="f-pin_label">Pin to node label<\/label>/, path);
    assert.match(
      html,
      /<input id="f-pin_label" name="pin_label"[^>]*pattern="\[A-Za-z0-9_\.\\-\]\{1,50\}"/,
    );
    assert.match(html, /data-error-for="pin_label"/);
  }
});
