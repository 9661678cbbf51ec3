// Admission control for background runs (spec 2.5). The scheduler asks before every start;
// the governor answers from the levers, the live in-flight counts the scheduler passes,
// the store's rolling token window and (optionally) the model server's waiting queue.
// Priority: lower number wins (interactive 0 is reserved, api 5, scheduled 10).

import { withDeadline } from "../deadline.ts";
import type { Clock, Env } from "../ports.ts";
import type { Run, Store } from "../store/store.ts";
import { isoZ } from "../time.ts";
import {
  CLASS_PRIORITY,
  GOVERNED_CLASSES,
  type GovernedClass,
  type GovernorConfig,
  loadGovernorConfig,
  mergeGovernorConfig,
  saveGovernorConfig,
  totalCapFrom,
} from "./config.ts";
import { CapacityError } from "./errors.ts";
import type { WaitingReader } from "./waiting.ts";

export type Lever =
  | "total_concurrent"
  | "max_concurrent"
  | "tokens_per_hour"
  | "defer_when_interactive";

export type Admission = { ok: true } | { ok: false; lever: Lever; reason: string };

/** What the governor reads of a queued run: its class and whether it is a first start. */
export type QueuedRun = Pick<Run, "class" | "attempt" | "resume_of_run">;

/** Runs occupying a slot (starting or running), per class. */
export type InFlight = Record<GovernedClass, number>;

export interface ClassUsage {
  running: number;
  max_concurrent: number;
  queued: number;
  tokens_last_hour: number;
  tokens_per_hour: number;
  default_priority: number;
}

export interface GovernorUsage {
  total: { running: number; max: number };
  classes: Record<GovernedClass, ClassUsage>;
  /**
   * depth: queued background submissions, what queue_depth_max limits (never above max);
   * other: every other queued run (retries, resumes, held `at` fires, scheduled triggers).
   */
  queue: { depth: number; max: number; other: number };
  defer: { enabled: boolean; threshold: number; waiting: number | null };
}

export interface GovernorOptions {
  /** governor.json (see governorPath). */
  path: string;
  env: Env;
  clock: Clock;
  store: Pick<Store, "tokensSince">;
  waiting?: WaitingReader;
  /** How long a metrics read may take before it counts as unreachable. */
  waitingTimeoutMs?: number;
}

const HOUR_MS = 3_600_000;

export class Governor {
  readonly totalCap: number;
  readonly #options: GovernorOptions;
  #config: GovernorConfig;
  #lastWaiting: number | null = null;

  /** Loads governor.json (defaults when absent). Throws GovernorConfigError when malformed. */
  static async open(options: GovernorOptions): Promise<Governor> {
    return new Governor(options, await loadGovernorConfig(options.path));
  }

  constructor(options: GovernorOptions, config: GovernorConfig) {
    this.#options = options;
    this.#config = config;
    this.totalCap = totalCapFrom(options.env);
  }

  get config(): GovernorConfig {
    return structuredClone(this.#config);
  }

  /** Validates a partial change, persists it atomically, then applies it. */
  async update(partial: unknown): Promise<GovernorConfig> {
    const next = mergeGovernorConfig(this.#config, partial, "governor update");
    await saveGovernorConfig(this.#options.path, next);
    this.#config = next;
    return this.config;
  }

  /** A job's priority pin wins; otherwise the class default. */
  priorityFor(cls: GovernedClass, jobPriority: number | null): number {
    return jobPriority ?? CLASS_PRIORITY[cls];
  }

  /** Whether one more run of `cls` may start now. `waiting` comes from readWaiting(). */
  admit(cls: GovernedClass, inFlight: InFlight, waiting: number | null): Admission {
    const c = this.#config;
    const total = inFlight.api + inFlight.scheduled;
    if (total >= this.totalCap) {
      return {
        ok: false,
        lever: "total_concurrent",
        reason:
          `${total} runs in flight reach the total cap of ${this.totalCap} (MAX_CONCURRENT_RUNS)`,
      };
    }
    if (inFlight[cls] >= c.max_concurrent[cls]) {
      return {
        ok: false,
        lever: "max_concurrent",
        reason: `${inFlight[cls]} ${cls} runs in flight reach max_concurrent.${cls} ${
          c.max_concurrent[cls]
        }`,
      };
    }
    const budget = c.tokens_per_hour[cls];
    if (budget > 0) {
      const used = this.tokensLastHour(cls);
      if (used >= budget) {
        return {
          ok: false,
          lever: "tokens_per_hour",
          reason:
            `${used} ${cls} tokens in the last 60 minutes reach tokens_per_hour.${cls} ${budget}`,
        };
      }
    }
    if (c.defer_when_interactive && waiting !== null && waiting >= c.defer_threshold) {
      return {
        ok: false,
        lever: "defer_when_interactive",
        reason:
          `model server has ${waiting} waiting requests (defer threshold ${c.defer_threshold})`,
      };
    }
    return { ok: true };
  }

  /**
   * The model server's waiting requests when defer_when_interactive is on; null when it is
   * off, no reader is wired, or the server does not answer in time (fail-open).
   */
  async readWaiting(): Promise<number | null> {
    const reader = this.#options.waiting;
    if (!this.#config.defer_when_interactive || !reader) return null;
    let value: number | null;
    try {
      value = await withDeadline(
        this.#options.clock,
        this.#options.waitingTimeoutMs ?? 2000,
        "metrics read",
        reader,
      );
    } catch {
      value = null; // unreachable or too slow: fail-open
    }
    this.#lastWaiting = value;
    return value;
  }

  /**
   * Throws CapacityError when a background submission would exceed queue_depth_max.
   * `queued`: the queued runs; only submissions count (isQueuedSubmission).
   */
  checkQueueDepth(queuedRuns: readonly QueuedRun[]): void {
    const queued = queuedRuns.filter(isQueuedSubmission).length;
    if (queued >= this.#config.queue_depth_max) {
      throw new CapacityError(queued, this.#config.queue_depth_max);
    }
  }

  tokensLastHour(cls: GovernedClass): number {
    const since = isoZ(new Date(this.#options.clock.now().getTime() - HOUR_MS));
    return this.#options.store.tokensSince(cls, since);
  }

  /** The dashboard's GPU fairness card. */
  usage(inFlight: InFlight, queuedRuns: readonly QueuedRun[]): GovernorUsage {
    const c = this.#config;
    const queued = { api: 0, scheduled: 0 };
    for (const run of queuedRuns) queued[run.class]++;
    const submissions = queuedRuns.filter(isQueuedSubmission).length;
    const classes = {} as Record<GovernedClass, ClassUsage>;
    for (const cls of GOVERNED_CLASSES) {
      classes[cls] = {
        running: inFlight[cls],
        max_concurrent: c.max_concurrent[cls],
        queued: queued[cls],
        tokens_last_hour: this.tokensLastHour(cls),
        tokens_per_hour: c.tokens_per_hour[cls],
        default_priority: CLASS_PRIORITY[cls],
      };
    }
    return {
      total: { running: inFlight.api + inFlight.scheduled, max: this.totalCap },
      classes,
      queue: {
        depth: submissions,
        max: c.queue_depth_max,
        other: queued.api + queued.scheduled - submissions,
      },
      defer: {
        enabled: c.defer_when_interactive,
        threshold: c.defer_threshold,
        waiting: this.#lastWaiting,
      },
    };
  }
}

/**
 * Whether a queued run counts toward queue_depth_max (spec 2.5: the queue depth of
 * background submissions): an api-class run waiting for its first start, that is a machine-
 * door or chat one-shot, a trigger's fire, or a one-shot run again by hand. Retries, resumes,
 * held `at` fires and manual triggers of scheduled jobs enter the queue without that check
 * and are shown apart (`queue.other`): each
 * belongs to work already admitted, and refusing one would drop an operator's answer or a
 * retry. They are bounded anyway: single-flight keeps about one per job, and jobs are capped.
 */
export function isQueuedSubmission(run: QueuedRun): boolean {
  return run.class === "api" && run.attempt === 1 && run.resume_of_run === null;
}
