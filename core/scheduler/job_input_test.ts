import assert from "node:assert/strict";
import {
  JobValidationError,
  MAX_RETRIES_DEFAULT,
  repinnedMeta,
  TIMEOUT_DEFAULT_S,
  validateJobInput,
  validateJobPatch,
} from "./job_input.ts";

const now = new Date("2026-03-02T09:00:00Z");
const ok = {
  name: "nightly",
  prompt: "summarize",
  schedule: { kind: "cron", expr: "0  9 * * 1-5", tz: "europe/paris" },
  workdir: "/srv/repo",
};

function fails(raw: unknown, field: string, message?: RegExp) {
  assert.throws(() => validateJobInput(raw, { now }), (err: unknown) => {
    assert.ok(err instanceof JobValidationError, String(err));
    assert.equal(err.field, field, err.message);
    assert.ok(err.message.startsWith(`${field}: `));
    if (message) assert.match(err.message, message);
    return true;
  });
}

Deno.test("a minimal job gets the documented defaults and a normalized schedule", () => {
  const job = validateJobInput(ok, {
    now,
    defaults: { base_url: "http://gpu/v1", model: "qwen3" },
  });
  assert.deepEqual(job, {
    name: "nightly",
    prompt: "summarize",
    schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Paris" },
    workdir: "/srv/repo",
    mode: "auto",
    timeout_s: TIMEOUT_DEFAULT_S,
    max_retries: MAX_RETRIES_DEFAULT,
    token_budget: null,
    priority: null,
    output_surface: "",
    base_url: "http://gpu/v1",
    model: "qwen3",
    provider_preset: "",
    enabled: true,
    recipe_id: null,
    recipe_version: null,
    next_run_at: null,
    class: "scheduled",
    meta: {},
  });
  assert.equal(TIMEOUT_DEFAULT_S, 1800);
  assert.equal(MAX_RETRIES_DEFAULT, 3);
});

Deno.test("every optional field is accepted in range", () => {
  const job = validateJobInput(
    {
      ...ok,
      mode: "strict",
      timeout_s: 60,
      max_retries: 0,
      token_budget: 200_000,
      priority: 100,
      output_surface: "messenger",
      base_url: "https://api.example.com/v1",
      model: "m",
      provider_preset: " gpu.local_1 ",
    },
    { now },
    {
      enabled: false,
      recipe_id: "daily-brief-9am",
      recipe_version: 2,
      meta: { room: "!r" },
    },
  );
  assert.equal(job.mode, "strict");
  assert.equal(job.timeout_s, 60);
  assert.equal(job.max_retries, 0);
  assert.equal(job.token_budget, 200_000);
  assert.equal(job.priority, 100);
  assert.equal(job.output_surface, "messenger");
  assert.equal(job.enabled, false);
  assert.equal(job.recipe_version, 2);
  assert.equal(job.provider_preset, "gpu.local_1");
  assert.equal(validateJobInput({ ...ok, token_budget: "" }, { now }).token_budget, null);
  assert.equal(validateJobInput({ ...ok, priority: null }, { now }).priority, null);
});

Deno.test("required fields and the request shape", () => {
  fails(null, "job", /expected a JSON object, got null/);
  fails([], "job", /an array/);
  for (const field of ["name", "prompt", "schedule", "workdir"]) {
    const raw: Record<string, unknown> = { ...ok };
    delete raw[field];
    fails(raw, field, /required/);
  }
  fails({ ...ok, api_key: "sk-x" }, "api_key", /unknown field/);
});

Deno.test("each bad field is named with what to send instead", () => {
  fails({ ...ok, name: "  " }, "name", /must not be empty/);
  fails({ ...ok, name: "a\nb" }, "name", /one line/);
  fails({ ...ok, name: "x".repeat(201) }, "name", /200/);
  fails({ ...ok, name: 5 }, "name", /expected a string, got number 5/);
  fails({ ...ok, prompt: "" }, "prompt", /must not be empty/);
  fails({ ...ok, prompt: "x".repeat(32_001) }, "prompt", /32000-character limit/);
  fails({ ...ok, prompt: "a\u0000b" }, "prompt", /control characters/);
  fails({ ...ok, schedule: "0 9 * * *" }, "schedule", /expected an object/);
  fails({ ...ok, schedule: { kind: "weekly", expr: "x" } }, "schedule.kind");
  fails({ ...ok, schedule: { kind: "every", expr: "30s" } }, "schedule.expr", /60-second floor/);
  fails({ ...ok, schedule: { kind: "cron", expr: "0 9 * *" } }, "schedule.expr");
  fails(
    { ...ok, schedule: { kind: "at", expr: "2026-03-01T09:00:00Z" } },
    "schedule.expr",
    /not in the future/,
  );
  fails(
    { ...ok, schedule: { kind: "cron", expr: "0 9 * * *", tz: "Mars/Olympus" } },
    "schedule.tz",
  );
  fails({ ...ok, schedule: { kind: "every", expr: "1h", when: "now" } }, "schedule.when");
  fails({ ...ok, workdir: "relative/dir" }, "workdir", /absolute path/);
  fails({ ...ok, mode: "plan" }, "mode", /"auto" or "strict"/);
  fails({ ...ok, timeout_s: 59 }, "timeout_s", /out of range 60\.\.86400/);
  fails({ ...ok, timeout_s: 86_401 }, "timeout_s");
  fails({ ...ok, timeout_s: 90.5 }, "timeout_s", /whole number/);
  fails({ ...ok, timeout_s: "90" }, "timeout_s", /whole number/);
  fails({ ...ok, max_retries: -1 }, "max_retries");
  fails({ ...ok, max_retries: 11 }, "max_retries");
  fails({ ...ok, token_budget: 0 }, "token_budget");
  fails({ ...ok, token_budget: 1.5 }, "token_budget");
  fails({ ...ok, priority: 0 }, "priority", /reserved for interactive/);
  fails({ ...ok, priority: 101 }, "priority", /1\.\.100/);
  fails({ ...ok, output_surface: "github_pr_comment" }, "output_surface");
  fails({ ...ok, base_url: "ftp://x" }, "base_url", /http or https/);
  fails({ ...ok, base_url: "not a url" }, "base_url", /not a URL/);
  fails({ ...ok, model: 7 }, "model");
  fails({ ...ok, provider_preset: 7 }, "provider_preset", /preset id string/);
  fails({ ...ok, provider_preset: "../x" }, "provider_preset", /not a preset id/);
  fails({ ...ok, provider_preset: "a b" }, "provider_preset", /not a preset id/);
});

Deno.test("the server-side stamp (recipe_id, recipe_version, meta, enabled) is refused in a request body", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ recipe_id: "daily-brief-9am" }, /recipe route/],
    [{ recipe_version: 1 }, /recipe route/],
    [{ meta: { room: "!forged:hs" } }, /set by the outpost/],
    [{ enabled: false }, /starts enabled.*PUT/],
  ];
  for (const [extra, why] of cases) {
    const field = Object.keys(extra)[0]!;
    assert.throws(() => validateJobInput({ ...ok, ...extra }, { now }), (err: unknown) => {
      assert.ok(err instanceof JobValidationError);
      assert.equal(err.field, field);
      assert.match(err.message, why);
      return true;
    });
  }
  // Trusted code passes the stamp separately, and it is still checked.
  assert.throws(() => validateJobInput(ok, { now }, { recipe_version: 0 }), /recipe_version/);
  assert.throws(() => validateJobInput(ok, { now }, { meta: "room" as never }), /meta/);
});

Deno.test("one-shot submissions take no schedule and record an `at` of now", () => {
  const job = validateJobInput({ name: "n", prompt: "p", workdir: "/w" }, {
    now,
    class: "api",
    oneShot: true,
  });
  assert.deepEqual(job.schedule, { kind: "at", expr: "2026-03-02T09:00:00Z", tz: "UTC" });
  assert.equal(job.class, "api");
  assert.throws(
    () => validateJobInput({ ...ok }, { now, oneShot: true }),
    { name: "JobValidationError", field: "schedule" } as never,
  );
});

Deno.test("patches validate only what they carry; null clears budget and priority", () => {
  assert.deepEqual(validateJobPatch({ token_budget: null, priority: null }, { now }), {
    patch: { token_budget: null, priority: null },
  });
  assert.deepEqual(validateJobPatch({ enabled: true }, { now }), { patch: {}, enabled: true });
  assert.deepEqual(validateJobPatch({ repin: true }, { now }), { patch: {}, repin: true });
  const p = validateJobPatch({ schedule: { kind: "every", expr: "2h" }, name: " x " }, { now });
  assert.deepEqual(p.patch, { name: "x", schedule: { kind: "every", expr: "2h", tz: "UTC" } });
  assert.throws(() => validateJobPatch({}, { now }), { field: "job" } as never);
  assert.throws(() => validateJobPatch({ repin: false }, { now }), { field: "repin" } as never);
  assert.throws(() => validateJobPatch({ class: "api" }, { now }), { field: "class" } as never);
  assert.throws(() => validateJobPatch({ timeout_s: 5 }, { now }), { field: "timeout_s" } as never);
});

Deno.test("pin_label pins a new job to a fleet label (kept in meta); bad labels are refused", () => {
  const pinned = validateJobInput({ ...ok, pin_label: "gpu-1" }, { now });
  assert.deepEqual(pinned.meta, { pin_label: "gpu-1" });
  assert.deepEqual(validateJobInput(ok, { now }).meta, {}, "no pin: any node");
  // A stamped meta (a chat room) keeps its keys beside the pin.
  const stamped = validateJobInput({ ...ok, pin_label: "gpu" }, { now }, { meta: { room: "!r" } });
  assert.deepEqual(stamped.meta, { room: "!r", pin_label: "gpu" });
  for (const bad of ["", "has space", "a/b", "x".repeat(51), 7, null, "gpu,big"]) {
    assert.throws(
      () => validateJobInput({ ...ok, pin_label: bad }, { now }),
      (err: unknown) =>
        err instanceof JobValidationError && err.field === "pin_label" &&
        /AGENT_OUTPOST_NODE_LABELS/.test(err.message),
      JSON.stringify(bad),
    );
  }
});

Deno.test("pin_label in an edit: a label moves the pin, null unpins, a bad label is refused", () => {
  assert.deepEqual(validateJobPatch({ pin_label: "gpu" }, { now }), {
    patch: {},
    pin_label: "gpu",
  });
  assert.deepEqual(validateJobPatch({ pin_label: null }, { now }), { patch: {}, pin_label: null });
  assert.equal(validateJobPatch({ name: "n" }, { now }).pin_label, undefined, "absent: unchanged");
  for (const bad of ["", "has space", "x".repeat(51), 7]) {
    assert.throws(
      () => validateJobPatch({ pin_label: bad }, { now }),
      (err: unknown) => err instanceof JobValidationError && err.field === "pin_label",
      JSON.stringify(bad),
    );
  }
  // The meta a pin change writes: other keys kept, the pin replaced or removed.
  assert.deepEqual(repinnedMeta({ room: "!r", pin_label: "a" }, "b"), {
    room: "!r",
    pin_label: "b",
  });
  assert.deepEqual(repinnedMeta({ room: "!r", pin_label: "a" }, null), { room: "!r" });
});
