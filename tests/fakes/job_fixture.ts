// One valid NewJob for tests and benchmarks; pass only what a case cares about. And a job
// with one run that ended ok, written straight to a store.

import type { NewJob, Store } from "../../core/store/store.ts";

export function newJobFixture(overrides: Partial<NewJob> = {}): NewJob {
  return {
    name: "job",
    prompt: "p",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: "/w",
    mode: "auto",
    timeout_s: 1800,
    max_retries: 3,
    token_budget: null,
    priority: null,
    output_surface: "",
    base_url: "",
    model: "",
    provider_preset: "",
    enabled: true,
    recipe_id: null,
    recipe_version: null,
    next_run_at: "2026-03-02T10:00:00Z",
    class: "scheduled",
    meta: {},
    ...overrides,
  };
}

/** A new job (newJobFixture) and its first run, ended ok (exit 0), written straight to `store`. */
export function okRunRecords(store: Store) {
  const job = store.createJob(newJobFixture());
  const run = store.createRun({
    job_id: job.id,
    status: "ok",
    attempt: 1,
    exit_code: 0,
    priority: 10,
    class: "scheduled",
  });
  return { job, run };
}
