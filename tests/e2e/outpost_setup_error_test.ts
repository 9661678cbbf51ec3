// Issue 37 §3d through the whole product: a real `agent-outpost` whose runner starts the real
// `agent -p`. A job whose workdir holds a project settings file that cannot be read (here: not
// valid TOML) fails on its first run with that reason on the run page, is not retried (the job
// is disabled at once) and raises one alert, instead of three retries into the same error.

import assert from "node:assert/strict";
import { startStack, waitForRun } from "./outpost_process_kit.ts";

Deno.test("outpost: a job whose project settings cannot be read stops at once with the reason", async () => {
  const stack = await startStack();
  const { home, fake, api } = stack;
  try {
    const { url } = stack.outpost;
    const work = `${home}/work`;
    await Deno.mkdir(`${work}/.agent`, { recursive: true });
    await Deno.writeTextFile(`${work}/.agent/settings.toml`, "model = \n");
    const created = await api("POST", "api/jobs", {
      name: "broken-project",
      prompt: "summarize",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: work,
      max_retries: 3,
    });
    assert.equal(created.status, 201, created.text);
    const jobId = created.json.job.id as number;
    const runId = (await api("POST", `api/jobs/${jobId}/trigger`)).json.run.id as number;
    await waitForRun(url, runId, "error");

    const page = await (await fetch(`${url}runs/${jobId}/${runId}`)).text();
    assert.match(page, /settings\.toml is not valid TOML/, "the run page names the cause");
    const job = (await api("GET", `api/jobs/${jobId}`)).json.job;
    assert.equal(job.enabled, false);
    assert.match(job.disabled_reason, /^the run cannot start: .*not valid TOML/);
    const runs = (await api("GET", `api/jobs/${jobId}/runs`)).json.runs;
    assert.equal(runs.length, 1, `no retry: ${JSON.stringify(runs)}`);
    // The log adapter records each delivered event: exactly one alert, of the new kind.
    const log = await Deno.readTextFile(`${home}/.agent/outpost/delivery.jsonl`);
    const alerts = log.trim().split("\n").map((l) => JSON.parse(l)).filter((e) =>
      e.kind === "alert"
    );
    assert.deepEqual(alerts.map((a) => a.alert), ["setup_error"], log);
    assert.equal(fake.allRequests.length, 0, "the child never reached the model server");
  } finally {
    await stack.close();
  }
});
