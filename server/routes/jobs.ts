// Jobs and runs of the human door (spec 4.5, 7): CRUD, trigger, cancel, run history and
// report output. Validation, single-flight and the cancel core live in core/scheduler; this
// file maps requests to them, writes audit rows and pings live pages.

import type { Hono } from "hono";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import { jobKeyNote } from "../../core/scheduler/job_key.ts";
import { passedOverNote } from "../../core/scheduler/schedule.ts";
import { checkJobWorkdir } from "../../core/scheduler/workdir_check.ts";
import type { Job } from "../../core/store/store.ts";
import type { AppDeps } from "../deps.ts";
import { untilCommit } from "../views/commit_cache.ts";
import { ApiError } from "../http/errors.ts";
import { MARKDOWN_HEADERS, readRunReport } from "../http/reports.ts";
import { humanActor, ID, pathId, queryInt, readJsonObject } from "../http/request.ts";

export function registerJobRoutes(app: Hono, deps: AppDeps): void {
  const { store, scheduler, live } = deps;
  const actor = (c: Parameters<typeof humanActor>[0]) => humanActor(c, deps.trustedUserHeader);
  const mustJob = (id: number): Job => {
    const job = store.getJob(id);
    if (!job) throw new ApiError(404, "not_found", `no job with id ${id}`);
    return job;
  };
  // Which stored key the job's runs send, and where (core/scheduler/job_key.ts).
  const keyNote = (job: Job) => jobKeyNote({ env: deps.env, home: deps.home }, job);
  const record = (action: string, jobId: number, who: string, detail: string) =>
    audit(store, deps.logger, {
      action,
      target: `job:${jobId}`,
      actor: who,
      channel: "dashboard",
      detail,
    });

  // The landing page polls this; with 100 jobs it is the hottest read (~67 KiB built from
  // ~3,200 columns), so its body is reused until the store commits anything (commit_cache.ts).
  app.get("/api/jobs", (c) => {
    const body = untilCommit(
      store,
      deps.dataVersion,
      "api-jobs",
      () => JSON.stringify({ jobs: store.listJobs() }),
    );
    return c.body(body, 200, { "Content-Type": "application/json" });
  });

  app.post("/api/jobs", async (c) => {
    const body = await readJsonObject(c);
    if ("workdir" in body) body.workdir = await checkJobWorkdir(body.workdir, deps.workdirPlaces);
    const job = scheduler.createJob(body);
    record(AUDIT.jobCreate, job.id, actor(c), `created ${JSON.stringify(job.name)}`);
    live.publish({ type: "job", job_id: job.id, change: "created" });
    return c.json({ job, key: keyNote(job), ...scheduleNote(body, job) }, 201);
  });

  app.get(`/api/jobs/:id{${ID}}`, (c) => {
    const job = mustJob(pathId(c, "id"));
    return c.json({ job: { ...job, latest_run: store.latestRun(job.id) }, key: keyNote(job) });
  });

  app.put(`/api/jobs/:id{${ID}}`, async (c) => {
    const id = pathId(c, "id");
    const body = await readJsonObject(c);
    mustJob(id);
    if ("workdir" in body) body.workdir = await checkJobWorkdir(body.workdir, deps.workdirPlaces);
    const result = await scheduler.updateJob(id, body);
    const who = actor(c);
    const fields = Object.keys(body).filter((k) => k !== "enabled" && k !== "repin");
    if (fields.length > 0) record(AUDIT.jobUpdate, id, who, `changed ${fields.join(", ")}`);
    if (body.enabled === true) record(AUDIT.jobEnable, id, who, "enabled (dead-letter cleared)");
    if (body.enabled === false) record(AUDIT.jobDisable, id, who, "disabled");
    live.publish({ type: "job", job_id: id, change: "updated" });
    return c.json({
      job: result.job,
      ...(result.repin ? { repin: result.repin } : {}),
      key: keyNote(result.job),
      ...scheduleNote(body, result.job),
    });
  });

  app.delete(`/api/jobs/:id{${ID}}`, (c) => {
    const id = pathId(c, "id");
    if (!scheduler.deleteJob(id)) throw new ApiError(404, "not_found", `no job with id ${id}`);
    record(AUDIT.jobDelete, id, actor(c), "deleted with its run history; reports kept on disk");
    live.publish({ type: "job", job_id: id, change: "deleted" });
    return c.json({ deleted: true, job_id: id });
  });

  app.post(`/api/jobs/:id{${ID}}/trigger`, (c) => {
    const id = pathId(c, "id");
    const run = scheduler.trigger(id);
    record(AUDIT.jobTrigger, id, actor(c), `manual fire: run ${run.id}`);
    live.publish({ type: "run", job_id: id, run_id: run.id, status: run.status });
    return c.json({ run }, 202);
  });

  app.post(`/api/jobs/:id{${ID}}/cancel`, (c) => {
    const id = pathId(c, "id");
    const result = scheduler.cancel(id);
    if (result.status === "nothing_in_flight") {
      throw new ApiError(409, "nothing_in_flight", `job ${id} has no queued or running run`);
    }
    if (!result.repeated) {
      record(AUDIT.jobCancel, id, actor(c), `run ${result.run_id} cancelled while ${result.was}`);
      live.publish({ type: "run", job_id: id, run_id: result.run_id, status: "cancelled" });
    }
    return c.json({
      status: result.status,
      cancelled_at: result.cancelled_at,
      job_id: result.job_id,
      run_id: result.run_id,
      was: result.was,
    });
  });

  app.get(`/api/jobs/:id{${ID}}/runs`, (c) => {
    const id = pathId(c, "id");
    mustJob(id);
    const limit = queryInt(c, "limit", 1, 500, 50)!;
    const before = queryInt(c, "before", 1, Number.MAX_SAFE_INTEGER, undefined);
    const runs = store.listRuns(
      id,
      before === undefined ? { limit } : { limit, before_id: before },
    );
    return c.json({ runs });
  });

  const mustRun = (jobId: number, runId: number) => {
    const run = store.getRun(runId);
    if (!run || run.job_id !== jobId) {
      throw new ApiError(404, "not_found", `job ${jobId} has no run ${runId}`);
    }
    return run;
  };

  app.get(`/api/jobs/:id{${ID}}/runs/:run{${ID}}`, (c) => {
    return c.json({ run: mustRun(pathId(c, "id"), pathId(c, "run")) });
  });

  app.get(`/api/jobs/:id{${ID}}/runs/:run{${ID}}/output`, async (c) => {
    const run = mustRun(pathId(c, "id"), pathId(c, "run"));
    const text = await readRunReport(deps.home, run);
    return c.body(text, 200, MARKDOWN_HEADERS);
  });
}

/**
 * `schedule_note` of a create or update whose naive `at` fell in a DST gap: the spec passes
 * it over to the next valid instant, and the operator is told which one was stored.
 */
function scheduleNote(body: Record<string, unknown>, job: Job): { schedule_note?: string } {
  const raw = body.schedule;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return {};
  const note = passedOverNote(raw as Record<string, unknown>, job.schedule);
  return note === null ? {} : { schedule_note: note };
}
