// The `github_pr_comment` output surface (spec 2.7): when a run of a trigger-made job ends
// ok, its final answer is posted as a comment on the issue that fired it. The token comes
// from the outpost's environment (AGENT_OUTPOST_GITHUB_TOKEN) at send time and is never
// stored in a job, a trigger row, a log line or an audit row. The API base URL is
// configurable (AGENT_OUTPOST_GITHUB_API_URL, default https://api.github.com) for GitHub
// Enterprise and for tests, which point it at a loopback stand-in (tests/fakes/).

import { AUDIT_RECIPES } from "./audit_actions.ts";
import { audit } from "../audit/audit.ts";
import { withDeadline } from "../deadline.ts";
import { errorText, type Logger } from "../logger.ts";
import type { Clock, Env, Fetch } from "../ports.ts";
import type { Job, Store } from "../store/store.ts";
import { readReport } from "../scheduler/report_reader.ts";
import type { PublishGate } from "../publish/gate.ts";

export const GITHUB_TOKEN_ENV = "AGENT_OUTPOST_GITHUB_TOKEN";
export const GITHUB_API_URL_ENV = "AGENT_OUTPOST_GITHUB_API_URL";
export const DEFAULT_GITHUB_API_URL = "https://api.github.com";
/** A report larger than this is not posted: its answer is last, so a cut one would lose it. */
const REPORT_MAX_BYTES = 1024 * 1024;
/** GitHub refuses comment bodies over 65,536 characters. */
export const COMMENT_MAX = 60_000;
const SEND_TIMEOUT_MS = 15_000;

/** Where a trigger-made job's answer goes (job.meta.github, set by the webhook route). */
export interface GithubTarget {
  repo: string;
  issue_number: number;
}

/**
 * The target of a job whose surface is github_pr_comment, or null. `meta` alone is not
 * trusted: the machine door lets a token holder write a one-shot's meta, so the job must also
 * carry a recipe stamp (which no request body can set) and name a trigger row of that recipe
 * for the same repository. Only the webhook route makes such jobs.
 */
export function githubTargetOf(job: Job, store: Pick<Store, "triggers">): GithubTarget | null {
  if (job.recipe_id === null || job.meta.surface !== "github_pr_comment") return null;
  const g = job.meta.github as Record<string, unknown> | undefined;
  const triggerId = job.meta.trigger_id;
  if (typeof g?.repo !== "string" || typeof g.issue_number !== "number") return null;
  if (typeof triggerId !== "number") return null;
  const trigger = store.triggers.get(triggerId);
  if (!trigger || trigger.recipe_id !== job.recipe_id || trigger.repo !== g.repo) return null;
  return { repo: g.repo, issue_number: g.issue_number };
}

/** The API base URL from the environment; a bad value throws naming the variable. */
export function githubApiBase(env: Env): string {
  const raw = (env.get(GITHUB_API_URL_ENV) ?? "").trim() || DEFAULT_GITHUB_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${GITHUB_API_URL_ENV}=${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`${GITHUB_API_URL_ENV} must be an http(s) URL`);
  }
  return raw.replace(/\/+$/, "");
}

/**
 * The final answer of a markdown run report (core/agent/report.ts puts it last). The last
 * "## Final answer" heading is used: the prompt section (which holds the untrusted issue)
 * always comes before the real one, so no prompt text can leak into the comment.
 */
export function finalAnswerOf(report: string): string | null {
  const marker = "\n## Final answer\n\n";
  const at = report.lastIndexOf(marker);
  if (at < 0) return null;
  const answer = report.slice(at + marker.length).trim();
  return answer === "" || answer === "_(no final answer)_" ? null : answer;
}

export interface CommentPosterOptions {
  /** The agent home: reports are read only from <home>/outpost/runs/ (report_reader.ts). */
  home: string;
  store: Store;
  env: Env;
  fetch: Fetch;
  clock: Clock;
  logger: Logger;
  /** Every comment passes the secret scanner first (core/publish/gate.ts). */
  gate: PublishGate;
}

/** What a held comment keeps for its release. */
interface HeldComment {
  target: GithubTarget;
  body: string;
}

/** Posts the answers of finished trigger runs; `settled` lets tests wait on a post. */
export class GithubCommentPoster {
  readonly #o: CommentPosterOptions;
  readonly #pending = new Set<Promise<void>>();

  constructor(options: CommentPosterOptions) {
    this.#o = options;
    options.gate.register("github_comment", async (payload) => {
      const { target, body } = payload as HeldComment;
      await this.#send(target, body);
      const where = `${target.repo}#${target.issue_number}`;
      this.#record(AUDIT_RECIPES.githubComment, `issue:${where}`, `posted a released answer`);
    });
  }

  #record(action: string, target: string, detail: string): void {
    audit(this.#o.store, this.#o.logger, {
      action,
      target,
      actor: "recipe:github",
      channel: "outpost",
      detail,
    });
  }

  /** Call on every finished run; only ok runs of github_pr_comment jobs post anything. */
  runFinished(jobId: number, runId: number, status: string | null): void {
    if (status !== "ok") return;
    const job = this.#o.store.getJob(jobId);
    const target = job ? githubTargetOf(job, this.#o.store) : null;
    if (!job || !target) return;
    const p = this.#post(job, runId, target).catch((err) =>
      this.#o.logger.log("error", "github comment failed", { error: errorText(err) })
    );
    this.#pending.add(p);
    p.finally(() => this.#pending.delete(p));
  }

  /** Resolves when every post started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #post(job: Job, runId: number, target: GithubTarget): Promise<void> {
    const { store } = this.#o;
    const where = `${target.repo}#${target.issue_number}`;
    const record = (action: string, detail: string) =>
      this.#record(action, `job:${job.id}`, detail);
    try {
      // The run wrote its report and can swap it for a symlink or a FIFO: read it through the
      // one guarded reader, so no other file's text can reach a public comment.
      const read = await readReport({
        home: this.#o.home,
        path: store.getRun(runId)?.report_path ?? null,
        maxBytes: REPORT_MAX_BYTES,
        oversize: "refuse",
      });
      if (read.kind !== "text") {
        const why = read.kind === "too_large"
          ? `its report is larger than ${REPORT_MAX_BYTES} bytes`
          : read.why;
        record(
          AUDIT_RECIPES.githubCommentFailed,
          `run ${runId}: nothing posted to ${where}: ${why}`,
        );
        return;
      }
      const answer = finalAnswerOf(read.text);
      if (answer === null) {
        record(
          AUDIT_RECIPES.githubCommentFailed,
          `run ${runId}: no final answer to post to ${where}`,
        );
        return;
      }
      const body = clip(answer) +
        `\n\n<sub>Triage by agent-outpost, recipe ${job.recipe_id} v${job.recipe_version} ` +
        `(job ${job.id}, run ${runId}).</sub>`;
      const screened = await this.#o.gate.screen({
        surface: "github_comment",
        where: `comment on ${where}`,
        job_id: job.id,
        run_id: runId,
        text: body,
        payload: { target, body } satisfies HeldComment,
      });
      if (screened.kind === "held") return; // the gate wrote the audit row and the item
      await this.#send(target, body);
      record(AUDIT_RECIPES.githubComment, `run ${runId}: posted the answer to ${where}`);
    } catch (err) {
      // errorText of a fetch error never holds the token: it is only in a request header.
      record(AUDIT_RECIPES.githubCommentFailed, `run ${runId} to ${where}: ${errorText(err)}`);
    }
  }

  /** POSTs one comment; the token is read from the environment now, never kept. */
  async #send(target: GithubTarget, body: string): Promise<void> {
    const where = `${target.repo}#${target.issue_number}`;
    const token = (this.#o.env.get(GITHUB_TOKEN_ENV) ?? "").trim();
    if (token === "") {
      throw new Error(`${GITHUB_TOKEN_ENV} is not set, so nothing can be posted to ${where}`);
    }
    const url = `${githubApiBase(this.#o.env)}/repos/${target.repo}/issues/` +
      `${target.issue_number}/comments`;
    const res = await withDeadline(
      this.#o.clock,
      SEND_TIMEOUT_MS,
      "github comment",
      (signal) =>
        this.#o.fetch(url, {
          method: "POST",
          signal,
          headers: {
            Authorization: `Bearer ${token}`,
            Accept: "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "Content-Type": "application/json",
            "User-Agent": "agent-outpost",
          },
          body: JSON.stringify({ body }),
        }),
    );
    const text = await res.text();
    if (!res.ok) {
      throw new Error(`the code host answered ${res.status}: ${text.slice(0, 200)}`);
    }
  }
}

function clip(text: string): string {
  return text.length <= COMMENT_MAX
    ? text
    : `${text.slice(0, COMMENT_MAX)}\n\n[… cut at ${COMMENT_MAX} characters]`;
}
