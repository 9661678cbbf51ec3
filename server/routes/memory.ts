// The memory pane (spec 2.1 rule 8, 4.5, 7.1, 8): list and search are unfiltered operator
// views without bodies; a body goes through the memory tool's own path guard, is refused
// over 64 KB, and a successful read writes a body_read audit row, at most one per reader and
// path a minute (AuditRepeatFilter), so reloads and polling do not flood the trail.

import type { Hono } from "hono";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import { AuditRepeatFilter } from "../../core/audit/repeat_filter.ts";
import { errorText } from "../../core/logger.ts";
import type { MemoryStore } from "../../core/memory/mod.ts";
import { VIRTUAL_ROOT } from "../../core/memory/path_guard.ts";
import type { AppDeps } from "../deps.ts";
import { ApiError, badInput } from "../http/errors.ts";
import { humanActor } from "../http/request.ts";

const QUERY_MAX = 500;
/**
 * Job children write memory files from other processes; list and search catch up with the
 * disk (an mtime/size walk, ~45 ms per 10,000 files) at most this often.
 */
export const MEMORY_REFRESH_MS = 5000;

export function registerMemoryRoutes(app: Hono, deps: AppDeps): void {
  let refreshedAt = -Infinity;
  const bodyReads = new AuditRepeatFilter(deps.clock);
  const open = async (): Promise<MemoryStore> => {
    try {
      return await deps.memory();
    } catch (err) {
      deps.logger.log("error", "memory store unavailable", { error: errorText(err) });
      throw new ApiError(503, "memory_unavailable", `memory is unavailable: ${errorText(err)}`);
    }
  };
  /** The store, caught up with files written by other processes since the last refresh. */
  const fresh = async (): Promise<MemoryStore> => {
    const memory = await open();
    const now = deps.clock.now().getTime();
    if (now - refreshedAt >= MEMORY_REFRESH_MS) {
      memory.refresh();
      refreshedAt = now;
    }
    return memory;
  };

  app.get("/api/memory", async (c) => {
    const memory = await fresh();
    return c.json(memory.list());
  });

  app.get("/api/memory/search", async (c) => {
    const q = c.req.query("q");
    if (q === undefined || q.trim() === "") {
      throw badInput("q", "required: the words to search for");
    }
    if (q.length > QUERY_MAX) throw badInput("q", `longer than ${QUERY_MAX} characters`);
    const memory = await fresh();
    return c.json({ q, hits: memory.search(q) });
  });

  app.get("/api/memory/body", async (c) => {
    const path = c.req.query("path");
    if (path === undefined || path === "") {
      throw badInput("path", "required: a memory path such as /memories/facts/build.md");
    }
    const memory = await open();
    const body = memory.readBody(path);
    const target = relativeOf(body.path);
    const actor = humanActor(c, deps.trustedUserHeader);
    if (bodyReads.shouldRecord(actor, target)) {
      audit(deps.store, deps.logger, {
        action: AUDIT.bodyRead,
        target,
        actor,
        channel: "dashboard",
        detail: `${body.size} bytes`,
      });
    }
    c.header("Cache-Control", "no-store");
    return c.json(body);
  });
}

/** /memories/facts/a.md → facts/a.md (the audit target is the memory relative path). */
function relativeOf(virtual: string): string {
  return virtual.startsWith(`${VIRTUAL_ROOT}/`) ? virtual.slice(VIRTUAL_ROOT.length + 1) : virtual;
}
