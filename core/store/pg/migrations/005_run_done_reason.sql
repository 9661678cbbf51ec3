-- PostgreSQL dialect of core/store/migrations/005_run_done_reason.sql, the same step: BIGINT for every integer (ids
-- and counts fit a JavaScript number), TEXT COLLATE "C" so text compares byte by byte as in SQLite.
-- 005: why a run's agent stopped, as its headless JSON reported it (issue 20): `done_reason`
-- (stop, truncated, token_budget, error, …) and the model's `stop_reason` (end_turn,
-- max_tokens, …). Exit 1 covers a crash and an answer cut off by max_tokens alike; these let the
-- run page and the API tell them apart without parsing the report.

ALTER TABLE runs ADD COLUMN done_reason TEXT;
ALTER TABLE runs ADD COLUMN stop_reason TEXT;
