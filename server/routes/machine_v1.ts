// The machine door, /api/v1/ (spec 5.1, 9): a stable wire contract for scripts and other
// services, documented in docs/machine-door-v1.md. Bearer tokens instead of SSO and CSRF.
// Response shapes are built field by field here, never passed through from the store, so a
// new store column cannot change the v1 wire by accident.

import type { Hono } from "hono";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import { checkJobWorkdir } from "../../core/scheduler/workdir_check.ts";
import type { Run } from "../../core/store/store.ts";
import type { AppDeps } from "../deps.ts";
import { ApiError, badInput } from "../http/errors.ts";
import { machineActor } from "../http/machine_auth.ts";
import { MARKDOWN_HEADERS, readRunReport } from "../http/reports.ts";
import { ID, pathId, readJsonObject } from "../http/request.ts";

/** Fields a v1 submission may carry (one-shot: no schedule, no endpoint override). */
const SUBMIT_FIELDS = new Set([
  "name",
  "prompt",
  "workdir",
  "mode",
  "timeout_s",
  "token_budget",
  "priority",
  "output_surface",
  "meta",
]);

const DEFAULT_NAME_CHARS = 60;

/** The v1 run status object. */
export function v1Run(run: Run) {
  return {
    job_id: run.job_id,
    run_id: run.id,
    status: run.status,
    attempt: run.attempt,
    exit_code: run.exit_code,
    reason: run.reason,
    queued_at: run.queued_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    cancelled_at: run.cancelled_at,
    tokens_in: run.tokens_in,
    tokens_out: run.tokens_out,
    cost_usd: run.cost_usd,
    output_url: `/api/v1/jobs/${run.job_id}/runs/${run.id}/output`,
  };
}

export function registerMachineRoutes(app: Hono, deps: AppDeps): void {
  const { store, scheduler } = deps;
  // machineAuth guards /api/v1 (mounted in app.ts, before the JSON body gate).

  app.post("/api/v1/jobs", async (c) => {
    const body = await readJsonObject(c);
    for (const key of Object.keys(body)) {
      if (!SUBMIT_FIELDS.has(key)) {
        throw badInput(key, `unknown field; v1 accepts ${[...SUBMIT_FIELDS].join(", ")}`);
      }
    }
    if (
      body.meta !== undefined &&
      (typeof body.meta !== "object" || body.meta === null || Array.isArray(body.meta))
    ) {
      throw badInput("meta", "expected a JSON object");
    }
    const token = c.get("machineToken");
    const actor = machineActor(token);
    if ("workdir" in body) body.workdir = await checkJobWorkdir(body.workdir, deps.workdirPlaces);
    const submission = {
      ...body,
      name: body.name ?? defaultName(body.prompt),
      meta: { ...(body.meta as Record<string, unknown> | undefined), submitted_by: actor },
    };
    const { job, run } = scheduler.submitOneShot(submission);
    audit(store, deps.logger, {
      action: AUDIT.apiSubmit,
      target: `job:${job.id}`,
      actor,
      channel: "machine",
      detail: `one-shot run ${run.id} queued`,
    });
    deps.live.publish({ type: "job", job_id: job.id, change: "created" });
    deps.live.publish({ type: "run", job_id: job.id, run_id: run.id, status: run.status });
    return c.json({
      job_id: job.id,
      run_id: run.id,
      status: run.status,
      status_url: `/api/v1/jobs/${job.id}/runs/${run.id}`,
    }, 202);
  });

  const mustRun = (jobId: number, runId: number): Run => {
    const run = store.getRun(runId);
    if (!run || run.job_id !== jobId) {
      throw new ApiError(404, "not_found", `job ${jobId} has no run ${runId}`);
    }
    return run;
  };

  // A failed attempt is retried as a new run of the same job, so "how did my submission
  // end?" is the job's newest run.
  app.get(`/api/v1/jobs/:id{${ID}}`, (c) => {
    const id = pathId(c, "id");
    const job = store.getJob(id);
    if (!job) throw new ApiError(404, "not_found", `no job with id ${id}`);
    const latest = store.latestRun(id);
    return c.json({
      job_id: job.id,
      name: job.name,
      enabled: job.enabled,
      latest_run: latest ? v1Run(latest) : null,
    });
  });

  app.get(`/api/v1/jobs/:id{${ID}}/runs/:run{${ID}}`, (c) => {
    return c.json(v1Run(mustRun(pathId(c, "id"), pathId(c, "run"))));
  });

  app.get(`/api/v1/jobs/:id{${ID}}/runs/:run{${ID}}/output`, async (c) => {
    const run = mustRun(pathId(c, "id"), pathId(c, "run"));
    return c.body(await readRunReport(deps.home, run), 200, MARKDOWN_HEADERS);
  });

  app.post(`/api/v1/jobs/:id{${ID}}/cancel`, (c) => {
    const id = pathId(c, "id");
    const result = scheduler.cancel(id);
    if (result.status === "nothing_in_flight") {
      throw new ApiError(409, "nothing_in_flight", `job ${id} has no queued or running run`);
    }
    if (!result.repeated) {
      audit(store, deps.logger, {
        action: AUDIT.jobCancel,
        target: `job:${id}`,
        actor: machineActor(c.get("machineToken")),
        channel: "machine",
        detail: `run ${result.run_id} cancelled while ${result.was}`,
      });
      deps.live.publish({ type: "run", job_id: id, run_id: result.run_id, status: "cancelled" });
    }
    return c.json({
      status: result.status,
      job_id: result.job_id,
      run_id: result.run_id,
      cancelled_at: result.cancelled_at,
    });
  });
}

/** "api: <start of the prompt>" when a submission names no job. */
function defaultName(prompt: unknown): string {
  if (typeof prompt !== "string") return "api job";
  const flat = prompt.replace(/\s+/g, " ").trim();
  // deno-lint-ignore no-control-regex
  const clean = flat.replace(/[\u0000-\u001F\u007F]/g, "");
  if (clean === "") return "api job";
  return `api: ${
    clean.length > DEFAULT_NAME_CHARS ? clean.slice(0, DEFAULT_NAME_CHARS - 1) + "…" : clean
  }`;
}
