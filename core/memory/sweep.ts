// Lifecycle sweeps, decided on the injected clock against each file's mtime ("untouched"):
// session files go after about 24 hours, episodic after about 6 weeks, project-fact files
// are only flagged stale after about 6 months, and preferences and the curated MEMORY.md
// are never touched.

import type { IndexedFile } from "./recall_index.ts";
import { isCuratedIndex } from "./frontmatter.ts";
import { EPISODIC_TTL_MS, SESSION_TTL_MS, STALE_AFTER_MS } from "./limits.ts";

export interface SweepPlan {
  /** Root-relative paths to delete. */
  expired: string[];
  /** Root-relative project-fact paths to flag stale (never deleted). */
  stale: string[];
}

export interface SweepOptions {
  /** Reconcile the index with the files first (default true; a full walk of the root). */
  refresh?: boolean;
}

export interface SweepReport {
  /** Virtual paths deleted. */
  deleted: string[];
  /** Virtual paths now flagged stale. */
  stale: string[];
  /** Virtual paths that should have been deleted but could not be (with why). */
  failed: { path: string; error: string }[];
}

export function isStale(f: IndexedFile, nowMs: number): boolean {
  return f.category === "project-fact" && nowMs - f.mtimeMs > STALE_AFTER_MS &&
    !isCuratedIndex(f.path);
}

export function planSweep(files: readonly IndexedFile[], nowMs: number): SweepPlan {
  const plan: SweepPlan = { expired: [], stale: [] };
  for (const f of files) {
    // The curated index is never swept, whatever category it carries (a hand-written one
    // may say episodic or session; older versions stamped a tool-written one episodic).
    if (isCuratedIndex(f.path)) continue;
    const age = nowMs - f.mtimeMs;
    if (f.category === "session" && age > SESSION_TTL_MS) plan.expired.push(f.path);
    else if (f.category === "episodic" && age > EPISODIC_TTL_MS) plan.expired.push(f.path);
    else if (isStale(f, nowMs)) plan.stale.push(f.path);
  }
  return plan;
}
