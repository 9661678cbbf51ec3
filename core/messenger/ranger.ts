// The ranger workspace's window on the outpost (spec 4.6): before each chat `ask`, the outpost
// writes a read-only snapshot of its jobs, schedules, recent runs, alerts and open inbox items
// to STATUS.md in the ranger workspace. The agent there has no API access and its file tools
// cannot leave the workspace, so this file is all it knows of the outpost; the workspace's
// AGENTS.md (written by `agent-outpost ranger init`) tells it to answer from it.
//
// Alerts are not stored as such; they are derived from the store the way the scheduler raises
// them: a dead-lettered job, a job disabled by a schedule error, a run skipped for model
// drift, and open inbox items (needs_human).

import { writeFileAtomic } from "../atomic_write.ts";
import { sanitizeText } from "../delivery/sanitize.ts";
import { classifyRisk } from "../inbox/risk.ts";
import { isoZ } from "../time.ts";
import type { InboxItem, JobWithLatestRun, Run, Store } from "../store/store.ts";

export const STATUS_FILE = "STATUS.md";
/** How far back the runs section reaches. */
export const RUNS_WINDOW_HOURS = 24;
export const SNAPSHOT_LIMITS = { jobs: 50, runs: 100, inbox: 20, reason: 300 } as const;

function line(text: unknown, max: number = SNAPSHOT_LIMITS.reason): string {
  return sanitizeText(text, { max, singleLine: true });
}

function jobLabel(id: number, names: Map<number, string>): string {
  const name = names.get(id);
  return name === undefined ? `job #${id}` : `job #${id} "${line(name, 80)}"`;
}

function runLine(run: Run, names: Map<number, string>, base: string): string {
  const parts = [`run ${run.id} of ${jobLabel(run.job_id, names)}: ${run.status}`];
  if (run.exit_code !== null) parts.push(`exit ${run.exit_code}`);
  if (run.attempt > 1) parts.push(`attempt ${run.attempt}`);
  parts.push(`queued ${run.queued_at}`);
  if (run.started_at) parts.push(`started ${run.started_at}`);
  if (run.finished_at) parts.push(`finished ${run.finished_at}`);
  if (run.reason) parts.push(`reason: ${line(run.reason)}`);
  parts.push(`${base}/runs/${run.job_id}/${run.id}`);
  return `- ${parts.join("; ")}`;
}

function jobLine(job: JobWithLatestRun): string {
  const state = job.enabled ? "enabled" : `disabled (${line(job.disabled_reason ?? "paused")})`;
  const last = job.latest_run
    ? `last run ${job.latest_run.id} ${job.latest_run.status}` +
      (job.latest_run.finished_at ? ` at ${job.latest_run.finished_at}` : "")
    : "never run";
  const failures = job.failure_count > 0 ? `; ${job.failure_count} consecutive failures` : "";
  return `- job #${job.id} "${
    line(job.name, 80)
  }" (${job.class}, ${job.mode}): ${state}; ${last}${failures}`;
}

function scheduleLine(job: JobWithLatestRun): string {
  const s = job.schedule;
  const next = job.enabled ? `next ${job.next_run_at ?? "none"}` : "paused";
  return `- job #${job.id} "${line(job.name, 80)}": ${s.kind} ${line(s.expr, 80)} ${s.tz}; ${next}`;
}

function itemLine(item: InboxItem, names: Map<number, string>, base: string): string {
  const q = item.questions[0]?.text ?? "(no question text)";
  const more = item.questions.length > 1 ? ` (+${item.questions.length - 1} more)` : "";
  return `- item #${item.id} from run ${item.run_id} of ${jobLabel(item.job_id, names)}, ` +
    `${classifyRisk(item.questions)} risk, opened ${item.created_at}: ${line(q)}${more} ` +
    `${base}/inbox/${item.id}`;
}

/** `more`: how many were left out, or true when the count is not known. */
function section(
  title: string,
  lines: string[],
  empty: string,
  more: number | boolean = 0,
): string[] {
  const tail = more === true
    ? ["- (more not shown; see the dashboard)"]
    : typeof more === "number" && more > 0
    ? [`- (${more} more not shown; see the dashboard)`]
    : [];
  return [`## ${title}`, "", ...(lines.length ? lines : [empty]), ...tail, ""];
}

/** The snapshot's markdown, built from the store as it is at `now`. */
export function rangerSnapshot(store: Store, now: Date, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  const jobs = store.listJobs();
  const names = new Map(jobs.map((j) => [j.id, j.name]));
  const since = isoZ(new Date(now.getTime() - RUNS_WINDOW_HOURS * 3600_000));
  const runs = store.listRunHistory({ from: since }, { limit: SNAPSHOT_LIMITS.runs + 1 });
  const openCount = store.countInbox("open");
  const items = store.listInbox({ state: "open", limit: SNAPSHOT_LIMITS.inbox });
  const scheduled = jobs.filter((j) => j.class === "scheduled");

  const alerts: string[] = [];
  for (const job of jobs) {
    if (job.dead_letter_reason) {
      alerts.push(
        `- dead letter: job #${job.id} "${line(job.name, 80)}" was disabled after repeated ` +
          `failures: ${line(job.dead_letter_reason)}`,
      );
    } else if (!job.enabled && job.disabled_reason?.startsWith("schedule error")) {
      alerts.push(
        `- schedule error: job #${job.id} "${line(job.name, 80)}" is disabled: ` +
          line(job.disabled_reason),
      );
    }
  }
  for (const run of runs.filter((r) => r.status === "skipped_drift")) {
    alerts.push(
      `- model drift: run ${run.id} of ${jobLabel(run.job_id, names)} was skipped: ` +
        line(run.reason ?? "the served model changed"),
    );
  }
  if (openCount > 0) {
    alerts.push(`- needs a human: ${openCount} open inbox item${openCount === 1 ? "" : "s"}`);
  }

  return [
    "# Outpost status snapshot",
    "",
    `Taken ${isoZ(now)} by agent-outpost, just before this question was submitted. ` +
    "It is a read-only copy: the outpost rewrites this file before every `ask`, and editing it " +
    `changes nothing on the outpost. Times are UTC. Dashboard: ${base}`,
    "",
    ...section("Alerts", alerts, "- none"),
    ...section(
      `Runs in the last ${RUNS_WINDOW_HOURS} hours (newest first)`,
      runs.slice(0, SNAPSHOT_LIMITS.runs).map((r) => runLine(r, names, base)),
      "- no runs",
      runs.length > SNAPSHOT_LIMITS.runs,
    ),
    ...section(
      `Open inbox items (${openCount})`,
      items.map((i) => itemLine(i, names, base)),
      "- none",
      openCount - items.length,
    ),
    ...section(
      "Schedules",
      scheduled.slice(0, SNAPSHOT_LIMITS.jobs).map(scheduleLine),
      "- no scheduled jobs",
      scheduled.length - Math.min(scheduled.length, SNAPSHOT_LIMITS.jobs),
    ),
    ...section(
      "Jobs (newest first)",
      jobs.slice(0, SNAPSHOT_LIMITS.jobs).map(jobLine),
      "- no jobs",
      jobs.length - Math.min(jobs.length, SNAPSHOT_LIMITS.jobs),
    ),
  ].join("\n");
}

/** Writes the snapshot into the ranger workspace (whole file or nothing; owner-only). */
export async function writeRangerSnapshot(workdir: string, text: string): Promise<void> {
  await writeFileAtomic(`${workdir}/${STATUS_FILE}`, text, { mode: 0o600 });
}
