-- PostgreSQL dialect of core/store/migrations/008_run_cache_tokens.sql, the same step: BIGINT for every integer (ids
-- and counts fit a JavaScript number), TEXT COLLATE "C" so text compares byte by byte as in SQLite.
-- 008: the prompt-cache counts a run's headless JSON reported (issue 29):
-- `usage.cache_read_tokens` (prompt tokens the provider served from its cache) and
-- `usage.cache_write_tokens` (prompt tokens it stored). tokens_in leaves both out, so a run's
-- whole prompt is tokens_in + cache_read_tokens + cache_write_tokens. Null for runs from before
-- this step and for a child that printed no result.

ALTER TABLE runs ADD COLUMN cache_read_tokens BIGINT;
ALTER TABLE runs ADD COLUMN cache_write_tokens BIGINT;
