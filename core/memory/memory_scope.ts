// The names of the memory scopes (what `--memory-scope` accepts). Kept apart from scope.ts,
// which enforces them, so the flag parser does not load the memory modules at start-up.

export const MEMORY_SCOPES = ["all", "workspace"] as const;
/** "all": every memory file; "workspace": only this workspace's view (scope.ts). */
export type MemoryScope = typeof MEMORY_SCOPES[number];
