-- 008: the prompt-cache counts a run's headless JSON reported (issue 29):
-- `usage.cache_read_tokens` (prompt tokens the provider served from its cache) and
-- `usage.cache_write_tokens` (prompt tokens it stored). tokens_in leaves both out, so a run's
-- whole prompt is tokens_in + cache_read_tokens + cache_write_tokens. Null for runs from before
-- this step and for a child that printed no result.

ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE runs ADD COLUMN cache_write_tokens INTEGER;
