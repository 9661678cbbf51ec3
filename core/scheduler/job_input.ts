// Validation of job input from every door (dashboard POST/PUT, machine door, chat, recipes).
// Each failure names the field and says what to send instead.
//
// Decided bounds (spec 2.3 leaves them open): timeout_s default 1800 (30 min), 60..86400;
// max_retries default 3, 0..10; prompt at most 32,000 characters (one argv element must
// stay under Linux's 128 KiB MAX_ARG_STRLEN even in 4-byte UTF-8); name at most 200.

import type { JobClass, JobMode, NewJob, OutputSurface } from "../store/store.ts";
import { type Schedule, ScheduleError, validateSchedule } from "./schedule.ts";
import { isoZ } from "../time.ts";
import { PRESET_ID_PATTERN } from "../settings/presets.ts";
import { isNodeLabel, NODE_LABEL_RULE } from "../fleet/node_label.ts";

export const TIMEOUT_DEFAULT_S = 1800;
export const TIMEOUT_MIN_S = 60;
export const TIMEOUT_MAX_S = 86_400;
export const MAX_RETRIES_DEFAULT = 3;
export const MAX_RETRIES_MAX = 10;
export const NAME_MAX = 200;
export const PROMPT_MAX = 32_000;
export const TOKEN_BUDGET_MAX = 1_000_000_000;

export class JobValidationError extends Error {
  override readonly name = "JobValidationError";
  readonly field: string;
  constructor(field: string, detail: string) {
    super(`${field}: ${detail}`);
    this.field = field;
  }
}

/** Values a new job takes when the request leaves them out (the current endpoint). */
export interface JobDefaults {
  base_url?: string;
  model?: string;
}

export interface JobInputContext {
  now: Date;
  defaults?: JobDefaults;
  /** Code path creating the job; "api" for machine-door and chat one-shots. */
  class?: JobClass;
  /**
   * A one-shot submission (machine door, chat `run`): no schedule is accepted; the job
   * records an `at` of now and runs once through the queue.
   */
  oneShot?: boolean;
}

/** What a create request from a door may carry (spec 2.3 / the POST /api/jobs row of 7). */
const CREATE_FIELDS = new Set([
  "name",
  "prompt",
  "schedule",
  "workdir",
  "mode",
  "timeout_s",
  "max_retries",
  "token_budget",
  "priority",
  "output_surface",
  "base_url",
  "model",
  "provider_preset",
]);

/**
 * Fields the outpost sets itself, never a request body: the recipe stamp (the recipe route),
 * `meta` (chat origin room, submitter) and `enabled` (a job starts enabled; pause it with a
 * PUT). Trusted code passes them as a JobStamp. Each refusal says where the field belongs.
 */
const STAMP_REFUSALS: Record<string, string> = {
  recipe_id: "set by the recipe route (POST /api/recipes/<id>/enable), never by a job request",
  recipe_version: "set by the recipe route (POST /api/recipes/<id>/enable), never by a job request",
  meta: "set by the outpost (chat room, submitter), never by a dashboard job request",
  enabled: 'a new job starts enabled; pause it afterwards with PUT {"enabled": false}',
};

/** Server-side fields of a new job, from trusted code only (recipe route, chat verbs, tests). */
export interface JobStamp {
  recipe_id?: string;
  recipe_version?: number;
  meta?: Record<string, unknown>;
  enabled?: boolean;
}

/**
 * Fields a PUT may change: those of a create plus the `enabled` and `repin` actions
 * (jobs.ts). The stamp (recipe_id, recipe_version, meta) is fixed for the job's lifetime.
 */
const PATCH_FIELDS = new Set([...CREATE_FIELDS, "enabled", "repin", "pin_label"]);

/** Validates a create request, filling defaults. Throws JobValidationError. */
export function validateJobInput(
  raw: unknown,
  ctx: JobInputContext,
  stamp: JobStamp = {},
): NewJob {
  const input = asObject(raw, "job");
  for (const key of Object.keys(input)) {
    // A one-shot's meta comes from the machine door, which checks it and adds submitted_by.
    if (ctx.oneShot && key === "meta") continue;
    const why = STAMP_REFUSALS[key];
    if (why !== undefined) throw new JobValidationError(key, why);
  }
  rejectUnknown(
    input,
    new Set([...CREATE_FIELDS, PIN_FIELD, ...(ctx.oneShot ? ["meta"] : [])]),
  );
  const meta = withPin(
    ctx.oneShot && input.meta !== undefined ? input.meta : stamp.meta,
    input[PIN_FIELD],
  );
  if (ctx.oneShot && input.schedule !== undefined) {
    throw new JobValidationError("schedule", "a one-shot submission runs now; leave schedule out");
  }
  const required = ctx.oneShot
    ? ["name", "prompt", "workdir"]
    : ["name", "prompt", "schedule", "workdir"];
  for (const field of required) {
    if (input[field] === undefined || input[field] === null) {
      throw new JobValidationError(field, "required");
    }
  }
  return {
    name: name(input.name),
    prompt: prompt(input.prompt),
    schedule: ctx.oneShot
      ? { kind: "at", expr: isoZ(ctx.now), tz: "UTC" }
      : schedule(input.schedule, ctx.now),
    workdir: workdir(input.workdir),
    mode: input.mode === undefined ? "auto" : mode(input.mode),
    timeout_s: input.timeout_s === undefined ? TIMEOUT_DEFAULT_S : timeout(input.timeout_s),
    max_retries: input.max_retries === undefined
      ? MAX_RETRIES_DEFAULT
      : maxRetries(input.max_retries),
    token_budget: tokenBudget(input.token_budget),
    priority: priority(input.priority),
    output_surface: input.output_surface === undefined ? "" : surface(input.output_surface),
    base_url: input.base_url === undefined ? ctx.defaults?.base_url ?? "" : baseUrl(input.base_url),
    model: input.model === undefined ? ctx.defaults?.model ?? "" : model(input.model),
    provider_preset: input.provider_preset === undefined
      ? ""
      : providerPreset(input.provider_preset),
    enabled: stamp.enabled === undefined ? true : bool(stamp.enabled, "enabled"),
    recipe_id: stamp.recipe_id === undefined ? null : shortText(stamp.recipe_id, "recipe_id", 100),
    recipe_version: stamp.recipe_version === undefined
      ? null
      : integer(stamp.recipe_version, "recipe_version", 1, 1_000_000),
    next_run_at: null,
    class: ctx.class ?? "scheduled",
    meta: meta === undefined ? {} : asObject(meta, "meta"),
  };
}

/** A validated PUT body: the field changes plus the enabled / repin actions. */
export interface JobPatchInput {
  patch: Partial<
    Pick<
      NewJob,
      | "name"
      | "prompt"
      | "schedule"
      | "workdir"
      | "mode"
      | "timeout_s"
      | "max_retries"
      | "token_budget"
      | "priority"
      | "output_surface"
      | "base_url"
      | "model"
      | "provider_preset"
    >
  >;
  enabled?: boolean;
  repin?: boolean;
  /** A new fleet pin label, or null to unpin; absent: unchanged. */
  pin_label?: string | null;
}

/**
 * The fleet label a job is pinned to (docs/fleet.md): kept in its meta as `pin_label`. Set at
 * creation or by an edit (null clears it); the rest of the meta stays as the job was made.
 */
export const PIN_FIELD = "pin_label";

function pinLabel(pin: unknown): string {
  if (!isNodeLabel(pin)) {
    throw new JobValidationError(
      PIN_FIELD,
      `${NODE_LABEL_RULE}, as a node offers it in AGENT_OUTPOST_NODE_LABELS`,
    );
  }
  return pin;
}

function withPin(meta: unknown, pin: unknown): unknown {
  if (pin === undefined) return meta;
  return { ...(meta === undefined ? {} : asObject(meta, "meta")), [PIN_FIELD]: pinLabel(pin) };
}

/** A job's meta with its pin set to `pin`, or without one for null. */
export function repinnedMeta(
  meta: Record<string, unknown>,
  pin: string | null,
): Record<string, unknown> {
  const { [PIN_FIELD]: _old, ...rest } = meta;
  return pin === null ? rest : { ...rest, [PIN_FIELD]: pin };
}

/** Validates a partial update. `null` clears token_budget and priority. */
export function validateJobPatch(raw: unknown, ctx: { now: Date }): JobPatchInput {
  const input = asObject(raw, "job");
  rejectUnknown(input, PATCH_FIELDS);
  if (Object.keys(input).length === 0) {
    throw new JobValidationError("job", "empty update; send at least one field to change");
  }
  const patch: JobPatchInput["patch"] = {};
  if (input.name !== undefined) patch.name = name(input.name);
  if (input.prompt !== undefined) patch.prompt = prompt(input.prompt);
  if (input.schedule !== undefined) patch.schedule = schedule(input.schedule, ctx.now);
  if (input.workdir !== undefined) patch.workdir = workdir(input.workdir);
  if (input.mode !== undefined) patch.mode = mode(input.mode);
  if (input.timeout_s !== undefined) patch.timeout_s = timeout(input.timeout_s);
  if (input.max_retries !== undefined) patch.max_retries = maxRetries(input.max_retries);
  if ("token_budget" in input) patch.token_budget = tokenBudget(input.token_budget);
  if ("priority" in input) patch.priority = priority(input.priority);
  if (input.output_surface !== undefined) patch.output_surface = surface(input.output_surface);
  if (input.base_url !== undefined) patch.base_url = baseUrl(input.base_url);
  if (input.model !== undefined) patch.model = model(input.model);
  if (input.provider_preset !== undefined) {
    patch.provider_preset = providerPreset(input.provider_preset);
  }
  const out: JobPatchInput = { patch };
  if (input[PIN_FIELD] !== undefined) {
    out.pin_label = input[PIN_FIELD] === null ? null : pinLabel(input[PIN_FIELD]);
  }
  if (input.enabled !== undefined) out.enabled = bool(input.enabled, "enabled");
  if (input.repin !== undefined) {
    if (input.repin !== true) throw new JobValidationError("repin", "only `true` is accepted");
    out.repin = true;
  }
  return out;
}

/** The operator's answer that resumes a halted run (it becomes the child's prompt). */
export function validateAnswer(answer: unknown): string {
  if (typeof answer !== "string" || answer.trim() === "") {
    throw new JobValidationError("answer", "must be a non-empty string");
  }
  if (answer.length > PROMPT_MAX || CONTROL.test(answer)) {
    throw new JobValidationError(
      "answer",
      `must be at most ${PROMPT_MAX} characters without control characters (NUL and the like)`,
    );
  }
  return answer;
}

// ---- field checks ----

function asObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new JobValidationError(field, `expected a JSON object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function rejectUnknown(input: Record<string, unknown>, allowed: Set<string>): void {
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) {
      throw new JobValidationError(
        key,
        `unknown field; accepted fields are ${[...allowed].join(", ")}`,
      );
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

function shortText(value: unknown, field: string, max: number): string {
  if (typeof value !== "string") {
    throw new JobValidationError(field, `expected a string, got ${describe(value)}`);
  }
  const text = value.trim();
  if (text === "") throw new JobValidationError(field, "must not be empty");
  if (text.length > max) throw new JobValidationError(field, `longer than ${max} characters`);
  if (CONTROL.test(text) || text.includes("\n")) {
    throw new JobValidationError(field, "must be one line without control characters");
  }
  return text;
}

function name(value: unknown): string {
  return shortText(value, "name", NAME_MAX);
}

function prompt(value: unknown): string {
  if (typeof value !== "string") {
    throw new JobValidationError("prompt", `expected a string, got ${describe(value)}`);
  }
  if (value.trim() === "") throw new JobValidationError("prompt", "must not be empty");
  if (value.length > PROMPT_MAX) {
    throw new JobValidationError(
      "prompt",
      `${value.length} characters is over the ${PROMPT_MAX}-character limit; shorten it or ` +
        `move the detail into a file in the workdir`,
    );
  }
  if (CONTROL.test(value)) {
    throw new JobValidationError("prompt", "contains control characters (NUL and the like)");
  }
  return value;
}

function schedule(value: unknown, now: Date): Schedule {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new JobValidationError(
      "schedule",
      `expected an object {kind, expr, tz}, got ${describe(value)}`,
    );
  }
  const s = value as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (key !== "kind" && key !== "expr" && key !== "tz") {
      throw new JobValidationError(`schedule.${key}`, "unknown field; use kind, expr and tz");
    }
  }
  try {
    return validateSchedule({ kind: s.kind, expr: s.expr, tz: s.tz }, now);
  } catch (err) {
    if (err instanceof ScheduleError) throw new JobValidationError(err.field, err.detail);
    throw err;
  }
}

function workdir(value: unknown): string {
  const path = shortText(value, "workdir", 4096);
  if (!path.startsWith("/")) {
    throw new JobValidationError("workdir", `${JSON.stringify(path)} is not an absolute path`);
  }
  return path;
}

function mode(value: unknown): JobMode {
  if (value === "auto" || value === "strict") return value;
  throw new JobValidationError("mode", `expected "auto" or "strict", got ${describe(value)}`);
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new JobValidationError(field, `expected a whole number, got ${describe(value)}`);
  }
  if (value < min || value > max) {
    throw new JobValidationError(field, `${value} is out of range ${min}..${max}`);
  }
  return value;
}

function timeout(value: unknown): number {
  return integer(value, "timeout_s", TIMEOUT_MIN_S, TIMEOUT_MAX_S);
}

function maxRetries(value: unknown): number {
  return integer(value, "max_retries", 0, MAX_RETRIES_MAX);
}

function tokenBudget(value: unknown): number | null {
  if (value === undefined || value === null || value === "") return null;
  return integer(value, "token_budget", 1, TOKEN_BUDGET_MAX);
}

function priority(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (value === 0) {
    throw new JobValidationError(
      "priority",
      "0 is reserved for interactive sessions; use 1..100 (lower runs first) or null",
    );
  }
  return integer(value, "priority", 1, 100);
}

function surface(value: unknown): OutputSurface {
  if (value === "messenger" || value === "") return value;
  throw new JobValidationError(
    "output_surface",
    `expected "messenger" or "" (dashboard only), got ${describe(value)}`,
  );
}

function baseUrl(value: unknown): string {
  if (typeof value !== "string") {
    throw new JobValidationError("base_url", `expected a URL string, got ${describe(value)}`);
  }
  const text = value.trim();
  if (text === "") return "";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new JobValidationError("base_url", `${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new JobValidationError("base_url", "must be an http or https URL");
  }
  return text;
}

/** A preset id (letters, digits, '.', '_', '-'), or "" for none; no lookup here. */
function providerPreset(value: unknown): string {
  if (typeof value !== "string") {
    throw new JobValidationError(
      "provider_preset",
      `expected a provider preset id string, got ${describe(value)}`,
    );
  }
  const text = value.trim();
  if (text !== "" && (text.length > 100 || !PRESET_ID_PATTERN.test(text))) {
    throw new JobValidationError(
      "provider_preset",
      `${JSON.stringify(text.slice(0, 100))} is not a preset id (letters, digits, '.', '_', '-')`,
    );
  }
  return text;
}

function model(value: unknown): string {
  if (typeof value !== "string") {
    throw new JobValidationError("model", `expected a string, got ${describe(value)}`);
  }
  const text = value.trim();
  if (text.length > 200 || CONTROL.test(text)) {
    throw new JobValidationError("model", "must be one line of at most 200 characters");
  }
  return text;
}

function bool(value: unknown, field: string): boolean {
  if (typeof value === "boolean") return value;
  throw new JobValidationError(field, `expected true or false, got ${describe(value)}`);
}
