// Memory limits from spec section 8, in one place so the tool, the dashboard routes and the
// tests agree on them.

/** Largest body the store ever returns whole or accepts on a write (64 KB). */
export const BODY_CAP_BYTES = 64 * 1024;

/** System-prompt memory index bounds (about 200 lines and 25 KB). */
export const CACHED_INDEX_MAX_LINES = 200;
export const CACHED_INDEX_MAX_BYTES = 25 * 1024;
/** MEMORY.md may use at most this share of the cached index, so the file list still shows. */
export const CURATED_INDEX_MAX_LINES = 100;
export const CURATED_INDEX_MAX_BYTES = 12 * 1024;

/** Per-turn recall snippets (volatile reminder channel). */
export const RECALL_LIMIT = 5;
/** Dashboard search hits. */
export const SEARCH_LIMIT = 10;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** session files are deleted after about 24 hours untouched. */
export const SESSION_TTL_MS = 24 * HOUR_MS;
/** episodic files are deleted after about 6 weeks untouched. */
export const EPISODIC_TTL_MS = 42 * DAY_MS;
/** project-fact files are flagged stale (never deleted) after about 6 months untouched. */
export const STALE_AFTER_MS = 182 * DAY_MS;

/** Reflection bounds: interactive quit and headless (-p / scheduled) runs. */
export const REFLECTION_TIMEOUT_INTERACTIVE_MS = 20_000;
export const REFLECTION_TIMEOUT_HEADLESS_MS = 90_000;
/** Memory-tool calls one reflection or bootstrap pass may make before the tool refuses. */
export const BOUNDED_PASS_MAX_TOOL_CALLS = 24;

export const DAY = DAY_MS;
