// The operator's memory changes from the memory pane (issue 18): change a file's category
// or workspace (PUT /api/memory/file) and delete a file (DELETE /api/memory/file?path=).
// Both go through the memory store's own path guard and guarded writes (the memory tool's
// code path), are CSRF-checked by app.ts like every human-door write, and write an audit
// row (memory_reclassify, memory_delete) naming the memory-relative path.

import type { Hono } from "hono";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import { errorText } from "../../core/logger.ts";
import { MemoryNotFoundError, type MemoryStore, VIRTUAL_ROOT } from "../../core/memory/mod.ts";
import type { Category } from "../../core/memory/mod.ts";
import type { AppDeps } from "../deps.ts";
import { ApiError, badInput } from "../http/errors.ts";
import { humanActor, readJsonObject } from "../http/request.ts";

function relativeOf(virtual: string): string {
  return virtual.startsWith(`${VIRTUAL_ROOT}/`) ? virtual.slice(VIRTUAL_ROOT.length + 1) : virtual;
}

export function registerMemoryAdminRoutes(app: Hono, deps: AppDeps): void {
  const open = async (): Promise<MemoryStore> => {
    try {
      return await deps.memory();
    } catch (err) {
      throw new ApiError(503, "memory_unavailable", `memory is unavailable: ${errorText(err)}`);
    }
  };

  app.put("/api/memory/file", async (c) => {
    const body = await readJsonObject(c);
    const { path, category, workspace } = body as Record<string, unknown>;
    if (typeof path !== "string" || path === "") {
      throw badInput("path", "required: a memory path such as /memories/facts/build.md");
    }
    if (category !== undefined && typeof category !== "string") {
      throw badInput("category", "a string: project-fact, preference, episodic or session");
    }
    if (workspace !== undefined && typeof workspace !== "string") {
      throw badInput("workspace", 'a string: a workspace key or "global"');
    }
    const memory = await open();
    const done = memory.reclassify(path, {
      ...(category === undefined ? {} : { category: category as Category }),
      ...(workspace === undefined ? {} : { workspace }),
    });
    audit(deps.store, deps.logger, {
      action: AUDIT.memoryReclassify,
      target: relativeOf(done.path),
      actor: humanActor(c, deps.trustedUserHeader),
      channel: "dashboard",
      detail: done.changes.length ? done.changes.join("; ") : "unchanged",
    });
    return c.json({ file: done });
  });

  app.delete("/api/memory/file", async (c) => {
    const path = c.req.query("path");
    if (path === undefined || path === "") {
      throw badInput("path", "required: a memory path such as /memories/facts/build.md");
    }
    const memory = await open();
    // Files only: a folder (and everything in it) is not deleted from a single click.
    const p = memory.resolve(path);
    if (!p.exists) throw new MemoryNotFoundError(p.virtual);
    if (p.isRoot || Deno.statSync(p.real).isDirectory) {
      throw badInput("path", `${p.virtual} is a folder; the dashboard deletes one file at a time`);
    }
    const size = Deno.statSync(p.real).size;
    memory.delete(path);
    audit(deps.store, deps.logger, {
      action: AUDIT.memoryDelete,
      target: relativeOf(p.virtual),
      actor: humanActor(c, deps.trustedUserHeader),
      channel: "dashboard",
      detail: `${size} bytes`,
    });
    return c.json({ deleted: p.virtual });
  });
}
