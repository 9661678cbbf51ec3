// Public surface of persistent memory (spec 2.1, 4.1, 4.2, 8). Callers import from here.

export { CURATED_FILE, MemoryStore, openMemory } from "./store.ts";
export type {
  CategoryStats,
  MemoryBody,
  MemoryFileInfo,
  MemoryList,
  OpenMemoryOptions,
  Recall,
  SearchHit,
} from "./store.ts";
export { resolveWorkspace, resolveWorkspaceSync } from "./workspace.ts";
export { isInside, parseVirtualPath, resolveMemoryPath, VIRTUAL_ROOT } from "./path_guard.ts";
export type { MemoryPath } from "./path_guard.ts";
export {
  MemoryCommandError,
  memoryDirProblem,
  MemoryNotFoundError,
  MemoryPathError,
  MemoryRootError,
  MemoryTooLargeError,
} from "./errors.ts";
export { CATEGORIES, type Category, GLOBAL_WORKSPACE, parseMemory } from "./frontmatter.ts";
export { checkReclassify } from "./reclassify.ts";
export type { Reclassified, Reclassify } from "./reclassify.ts";
export { MEMORY_TOOL_NAME, memoryKind, memoryTool } from "./memory_tool.ts";
export { toFtsQuery } from "./fts_query.ts";
export { RANKING } from "./recall_index.ts";
export type { ReconcileReport } from "./recall_index.ts";
export type { SweepOptions, SweepReport } from "./sweep.ts";
export { sweepAtStartup, sweepCounts, sweepFailureLine } from "./sweep_runner.ts";
export type { Sweepable } from "./sweep_runner.ts";
export {
  reflect,
  REFLECTION_TIMEOUT_HEADLESS_MS,
  REFLECTION_TIMEOUT_INTERACTIVE_MS,
} from "./reflection.ts";
export type {
  ReflectionMemory,
  ReflectionRunner,
  ReflectOptions,
  ReflectResult,
} from "./reflection.ts";
export { bootstrapFallback, bootstrapMemory, collectBootstrapSources } from "./bootstrap.ts";
export type { BootstrapResult, BootstrapSource } from "./bootstrap.ts";
export * from "./limits.ts";
