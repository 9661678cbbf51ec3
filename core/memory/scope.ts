// Which memory files a run may reach. Most runs reach the whole memory root (view lists
// every file; recall and the cached index show the current workspace's view). A run started
// by untrusted input (a webhook trigger, a chat `ask`, a recipe marked untrusted_intake:
// core/scheduler/intake.ts) opens memory with scope "workspace": the memory tool then refuses
// any file stamped with another workspace, for reading and writing alike, and directory
// listings leave such files out. "Own" is the same view recall uses: files stamped with this
// workspace, `workspace: global`, files without a workspace key (legacy, hand-written) and
// the curated MEMORY.md (which is in every workspace's prompt already).

import { MemoryCommandError } from "./errors.ts";
import { GLOBAL_WORKSPACE, isCuratedIndex, parseMemory } from "./frontmatter.ts";
import { readVerified, walkFiles } from "./guarded_fs.ts";
import type { CommandContext } from "./commands.ts";
import { BODY_CAP_BYTES } from "./limits.ts";
import { MEMORY_COMMANDS } from "./memory_tool.ts";
import { type MemoryPath, virtualOf } from "./path_guard.ts";

export type { MemoryScope } from "./memory_scope.ts";

const decoder = new TextDecoder();

/** True when a file stamped `workspace` (null: no key) belongs to `own`'s view. */
export function inWorkspaceView(workspace: string | null, own: string): boolean {
  return workspace === null || workspace === GLOBAL_WORKSPACE || workspace === own;
}

/** The workspace stamp of a file (root-relative path), read through the guarded reader. */
function stampOf(ctx: CommandContext, rel: string): string | null {
  if (isCuratedIndex(rel)) return null;
  const r = readVerified(ctx.root, `${ctx.root}/${rel}`, virtualOf(rel), BODY_CAP_BYTES, ctx.hooks);
  return parseMemory(decoder.decode(r.bytes)).workspace;
}

/** True when the file at `rel` belongs to another workspace (listings skip it). */
export function foreignFile(ctx: CommandContext, rel: string): boolean {
  return !inWorkspaceView(stampOf(ctx, rel), ctx.workspace);
}

function refuse(command: string, p: MemoryPath): never {
  throw new MemoryCommandError(
    command,
    `${p.virtual} belongs to another workspace. This run was started by untrusted input ` +
      `(a webhook, a chat ask or an untrusted-intake recipe), so it may only use its own ` +
      `workspace's memory: files stamped with this workspace, global files and MEMORY.md.`,
  );
}

/**
 * Throws MemoryCommandError when a memory-tool call would touch another workspace's file:
 * every path the call names is checked (a directory by every file below it, except for a
 * `view`, whose listing leaves those files out instead). Paths that do not exist yet pass:
 * the command itself decides about them.
 */
export function checkWorkspaceScope(ctx: CommandContext, input: Record<string, unknown>): void {
  const command = String(input.command);
  if (!(MEMORY_COMMANDS as readonly string[]).includes(command)) return; // the command refuses it
  const paths = command === "rename" ? [input.old_path, input.new_path] : [input.path];
  for (const raw of paths) {
    const p = ctx.resolve(raw);
    if (!p.exists) continue;
    if (Deno.statSync(p.real).isDirectory) {
      if (command === "view") continue;
      for (const e of walkFiles(ctx.root, p.real)) {
        if (foreignFile(ctx, e.rel)) refuse(command, ctx.resolve(virtualOf(e.rel)));
      }
      continue;
    }
    if (foreignFile(ctx, p.rel)) refuse(command, p);
  }
}
