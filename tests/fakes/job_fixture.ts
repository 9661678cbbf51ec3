// One valid NewJob for tests and benchmarks; pass only what a case cares about.

import type { NewJob } from "../../core/store/store.ts";

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
