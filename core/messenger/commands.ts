// Gate layer 5 (spec 5.7): a parsed chat command is executed through the same cores the
// dashboard uses (scheduler, inbox service, cancel core), one audit row is written per
// mutating verb, and the reply text is returned. Target checks (layer 4) that need the
// store also live here, so a typo'd id gets a friendly no-such-item / no-such-job reply.

import { AUDIT, audit } from "../audit/audit.ts";
import { detailExcerpt } from "../delivery/events.ts";
import { sanitizeTitle } from "../delivery/sanitize.ts";
import { CapacityError } from "../governor/errors.ts";
import type { InboxService } from "../inbox/service.ts";
import { classifyRisk } from "../inbox/risk.ts";
import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import { UNTRUSTED_INTAKE } from "../scheduler/intake.ts";
import { isPublishHold } from "../publish/gate.ts";
import { JobValidationError } from "../scheduler/job_input.ts";
import { JobConflictError } from "../scheduler/jobs.ts";
import type { Scheduler } from "../scheduler/scheduler.ts";
import { InboxStateError, JobLimitError, NotFoundError } from "../store/errors.ts";
import type { InboxItem, Job, Store } from "../store/store.ts";
import type { Command } from "./grammar.ts";
import { rangerSnapshot, writeRangerSnapshot } from "./ranger.ts";
import { helpText, refusal, RefusalError } from "./replies.ts";
import { RANGER, resolveWorkspace } from "./workspaces.ts";
import type { ProtectedPlaces } from "../workdir_policy.ts";

export const VIA_CHAT = "chat";

/** Who acted in the audit row and the inbox: the sender, through chat. */
const acting = (origin: Origin) => ({
  actor: origin.sender,
  via: VIA_CHAT,
  channel: "chat" as const,
});

/** The chat answers a high-risk item holds: the three decision verbs and free text. */
type HeldVerb = "approve" | "reject" | "revise" | "answer";

/** The most of each item's detail `list inbox` shows (ten items fit one chat message). */
export const LIST_DETAIL_MAX = 400;

export interface CommandDeps {
  store: Store;
  scheduler: Scheduler;
  inbox: InboxService;
  logger: Logger;
  /** Public dashboard address, for item and run links. */
  baseUrl: string;
  /** Folder whose subfolders are the workspaces `run <workspace>:` may name. */
  workspacesRoot: string;
  /** What no workspace may be, hold or lie inside (core/workdir_policy.ts). */
  workdirPlaces: ProtectedPlaces;
  /** The outpost's clock: the time of the ranger snapshot and its runs window. */
  clock: Clock;
}

/** Who sent the command, where, and which event (for the reply). */
export interface Origin {
  sender: string;
  room: string;
}

export function itemLink(baseUrl: string, id: number): string {
  return `${baseUrl.replace(/\/+$/, "")}/inbox/${id}`;
}

export function runLinkUrl(baseUrl: string, job: number, run: number): string {
  return `${baseUrl.replace(/\/+$/, "")}/runs/${job}/${run}`;
}

/** The target key the per-target rate limit counts, or null for verbs without one. */
export function targetKey(command: Command): string | null {
  switch (command.verb) {
    case "approve":
    case "reject":
    case "revise":
    case "dismiss":
      return `item:${command.item}`;
    case "pause":
    case "resume":
    case "stop":
      return `job:${command.job}`;
    case "run":
      return `workspace:${command.workspace}`;
    case "ask":
      return `workspace:${RANGER}`;
    default:
      return null;
  }
}

export class CommandRunner {
  readonly #d: CommandDeps;

  constructor(deps: CommandDeps) {
    this.#d = deps;
  }

  /** Runs one command; returns the reply. Throws RefusalError for a friendly refusal. */
  async execute(command: Command, origin: Origin): Promise<string> {
    switch (command.verb) {
      case "help":
        return helpText();
      case "status":
        return this.#status();
      case "list":
        return this.#list(command.what);
      case "run":
        return await this.#run(command.workspace, command.prompt, origin, "run");
      case "ask":
        return await this.#run(RANGER, command.prompt, origin, "ask");
      case "approve":
        return this.#decide(
          command.item,
          command.note ? `approved: ${command.note}` : "approved",
          "approve",
          origin,
        );
      case "reject":
        return this.#decide(
          command.item,
          command.note ? `rejected: ${command.note}` : "rejected",
          "reject",
          origin,
        );
      case "revise":
        return this.#decide(command.item, command.text, "revise", origin);
      case "dismiss":
        return this.#dismiss(command.item, origin);
      case "pause":
      case "resume":
        return this.#setEnabled(command.job, command.verb === "resume", origin);
      case "stop":
        return this.#stop(command.job, origin);
    }
  }

  /**
   * The free-text fall-through: answers item `id`, or the most recent open item. A high-risk
   * item's answer is held for the dashboard like approve (issue 31): otherwise free text would
   * be the way round the hold for a compromised chat account.
   */
  answer(id: number | null, text: string, origin: Origin): string | null {
    let item: InboxItem;
    if (id === null) {
      const latest = this.#d.store.listInbox({ state: "open", limit: 1 })[0];
      if (!latest) return null; // nothing open: nothing visible happens (spec 7.4)
      item = latest;
    } else {
      item = this.#openItem(id);
    }
    if (classifyRisk(item.questions) === "high") return this.#hold(item.id, text, "answer", origin);
    const { run } = this.#answer(item.id, text, origin, AUDIT.answer);
    return `Answered item ${item.id}` + (run ? `; the run resumes as run ${run.id}.` : ".");
  }

  // ---- read verbs ----

  #status(): string {
    const jobs = this.#d.store.listJobs()
      .filter((j) => j.latest_run !== null)
      .sort((a, b) =>
        b.latest_run!.queued_at.localeCompare(a.latest_run!.queued_at) ||
        b.latest_run!.id - a.latest_run!.id
      )
      .slice(0, 5);
    const open = this.#d.store.countInbox("open");
    const recent = jobs.length === 0
      ? "no runs yet"
      : jobs.map((j) => `#${j.id} ${short(j.name, 40)}: ${j.latest_run!.status}`).join("; ");
    return `${recent} | ${open} open inbox item${open === 1 ? "" : "s"}`;
  }

  #list(what: "inbox" | "jobs" | "schedules"): string {
    const { store } = this.#d;
    if (what === "inbox") {
      const items = store.listInbox({ state: "open", limit: 10 });
      if (items.length === 0) return "No open inbox items.";
      return ["Open inbox items:", ...items.map((i) => this.#itemLine(i))].join("\n");
    }
    const jobs = store.listJobs().filter((j) => what === "jobs" || j.class === "scheduled");
    const shown = jobs.slice(0, 10);
    if (shown.length === 0) return what === "jobs" ? "No jobs." : "No schedules.";
    const lines = shown.map((j) =>
      what === "jobs"
        ? `#${j.id} ${short(j.name, 60)} — ${j.enabled ? "enabled" : "disabled"}` +
          (j.latest_run ? `, last run ${j.latest_run.id} ${j.latest_run.status}` : "")
        : `#${j.id} ${short(j.name, 60)} — ${j.schedule.kind} ${j.schedule.expr} ${j.schedule.tz}` +
          (j.enabled ? `, next ${j.next_run_at ?? "none"}` : ", paused")
    );
    const more = jobs.length > shown.length ? [`(${jobs.length - shown.length} more)`] : [];
    return [what === "jobs" ? "Jobs:" : "Schedules:", ...lines, ...more].join("\n");
  }

  /**
   * One open item: its first question, then what it would approve (the diff, or the command
   * and its directory), indented. The list shows up to ten items, so each detail is cut to
   * LIST_DETAIL_MAX; the notice posted when the item opened carried up to DETAIL_MAX.
   */
  #itemLine(item: InboxItem): string {
    const first = item.questions[0];
    const q = sanitizeTitle(first?.text ?? "(no question text)");
    const line = `#${item.id} (job ${item.job_id}, ${classifyRisk(item.questions)} risk): ${
      short(q, 120)
    }`;
    const detail = detailExcerpt(first?.detail, LIST_DETAIL_MAX);
    return detail ? `${line}\n${detail.replace(/^/gm, "  ")}` : line;
  }

  // ---- mutating verbs ----

  async #run(
    workspace: string,
    prompt: string,
    origin: Origin,
    verb: "run" | "ask",
  ): Promise<string> {
    const workdir = await resolveWorkspace(
      this.#d.workspacesRoot,
      workspace,
      this.#d.workdirPlaces,
    );
    // `ask`: the ranger agent's only view of the outpost is the snapshot written here, and it
    // runs in strict mode, so an edit or shell call stops for a human instead of applying.
    if (verb === "ask") {
      const { store, clock, baseUrl } = this.#d;
      await writeRangerSnapshot(workdir, rangerSnapshot(store, clock.now(), baseUrl));
    }
    let submitted;
    try {
      submitted = this.#d.scheduler.submitOneShot({
        name: `chat ${verb}: ${short(prompt.replace(/\s+/g, " "), 60)}`,
        prompt,
        workdir,
        ...(verb === "ask" ? { mode: "strict" } : {}),
        output_surface: "messenger",
        meta: {
          room: origin.room,
          submitted_by: origin.sender,
          via: VIA_CHAT,
          verb,
          // `ask` runs the sender's question in the ranger workspace: untrusted intake.
          ...(verb === "ask" ? { [UNTRUSTED_INTAKE]: true } : {}),
        },
      });
    } catch (err) {
      if (err instanceof CapacityError) throw new RefusalError("capacity", errorText(err));
      if (err instanceof JobLimitError) throw new RefusalError("job_limit", errorText(err));
      if (err instanceof JobValidationError) throw new RefusalError("invalid", errorText(err));
      throw err;
    }
    const { job, run } = submitted;
    this.#audit(AUDIT.run, `job:${job.id}`, origin, `${verb} in ${workspace}; run ${run.id}`);
    return `Submitted job ${job.id}, run ${run.id} (workspace ${workspace}). ` +
      `The report will be posted here. ${runLinkUrl(this.#d.baseUrl, job.id, run.id)}`;
  }

  /** approve / reject / revise: held when the item is high risk, answered otherwise. */
  #decide(id: number, answer: string, verb: "approve" | "reject" | "revise", origin: Origin) {
    const item = this.#openItem(id);
    if (classifyRisk(item.questions) === "high") return this.#hold(id, answer, verb, origin);
    const { run } = this.#answer(id, answer, origin, AUDIT[verb]);
    const done = verb === "approve" ? "Approved" : verb === "reject" ? "Rejected" : "Revised";
    return `${done} item ${id}` + (run ? `; the run resumes as run ${run.id}.` : ".");
  }

  /** Parks a high-risk item's answer for dashboard confirmation (spec 3.2); the reply says so. */
  #hold(id: number, answer: string, verb: HeldVerb, origin: Origin): string {
    const held = this.#d.inbox.hold(
      id,
      { verb, answer, sender: origin.sender, room: origin.room },
      origin.sender,
    );
    const hold = this.#d.inbox.liveHold(held);
    return `Item ${id} is high risk: your ${verb} is held for dashboard confirmation` +
      (hold ? ` until ${hold.expires_at}` : "") +
      `. Confirm it at ${itemLink(this.#d.baseUrl, id)}`;
  }

  #dismiss(id: number, origin: Origin): string {
    this.#openItem(id);
    try {
      this.#d.inbox.dismiss(id, acting(origin), AUDIT.dismiss);
    } catch (err) {
      throw this.#inboxRefusal(err, id);
    }
    return `Dismissed item ${id}; its run stays stopped.`;
  }

  #setEnabled(id: number, enabled: boolean, origin: Origin): string {
    const job = this.#job(id);
    if (job.enabled === enabled) {
      return `Job ${id} is already ${enabled ? "enabled" : "paused"}.`;
    }
    try {
      const updated = this.#d.scheduler.setEnabled(
        id,
        enabled,
        enabled ? undefined : `paused from chat by ${origin.sender}`,
      );
      this.#audit(
        enabled ? AUDIT.resume : AUDIT.pause,
        `job:${id}`,
        origin,
        enabled ? "enabled" : "disabled",
      );
      return enabled
        ? `Resumed job ${id}` + (updated.next_run_at ? `; next run ${updated.next_run_at}.` : ".")
        : `Paused job ${id}; no run was touched.`;
    } catch (err) {
      if (err instanceof JobConflictError || err instanceof JobValidationError) {
        throw new RefusalError("conflict", errorText(err));
      }
      throw err;
    }
  }

  #stop(id: number, origin: Origin): string {
    this.#job(id);
    const result = this.#d.scheduler.cancel(id);
    if (result.status === "nothing_in_flight") {
      return `Job ${id} has no queued or running run: already finished.`;
    }
    if (result.repeated) {
      return `Job ${id}: run ${result.run_id} was already cancelled at ${result.cancelled_at}.`;
    }
    this.#audit(AUDIT.stop, `job:${id}`, origin, `run ${result.run_id} (${result.was})`);
    return result.was === "running"
      ? `Stopped run ${result.run_id} of job ${id} (process group killed).`
      : `Cancelled queued run ${result.run_id} of job ${id}; the job is disabled until re-enabled.`;
  }

  // ---- plumbing ----

  #answer(id: number, text: string, origin: Origin, action: string) {
    try {
      return this.#d.inbox.answer(id, text, acting(origin), action);
    } catch (err) {
      throw this.#inboxRefusal(err, id);
    }
  }

  #inboxRefusal(err: unknown, id: number): unknown {
    if (err instanceof NotFoundError) return refusal.noSuchItem(id);
    if (err instanceof InboxStateError) return refusal.itemClosed(id, errorText(err));
    if (err instanceof JobValidationError) return new RefusalError("invalid", errorText(err));
    return err;
  }

  #openItem(id: number): InboxItem {
    const item = this.#d.store.getInboxItem(id);
    if (!item) throw refusal.noSuchItem(id);
    if (item.state !== "open") throw refusal.itemClosed(id, `item ${id} is already ${item.state}`);
    if (isPublishHold(item)) {
      // Releasing a held text publishes a secret: a dashboard decision, never a chat verb.
      throw new RefusalError(
        "invalid",
        `item ${id} is a held publication: release or drop it on the dashboard at ` +
          itemLink(this.#d.baseUrl, id),
      );
    }
    return item;
  }

  #job(id: number): Job {
    const job = this.#d.store.getJob(id);
    if (!job) throw refusal.noSuchJob(id);
    return job;
  }

  #audit(action: string, target: string, origin: Origin, detail: string): void {
    audit(this.#d.store, this.#d.logger, {
      action,
      target,
      actor: origin.sender,
      channel: "chat",
      detail: `via chat in ${origin.room}; ${detail}`,
    });
  }
}

function short(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}
