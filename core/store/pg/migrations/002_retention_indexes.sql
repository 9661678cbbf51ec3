-- PostgreSQL dialect of core/store/migrations/002_retention_indexes.sql, the same step: BIGINT for every integer (ids
-- and counts fit a JavaScript number), TEXT COLLATE "C" so text compares byte by byte as in SQLite.
-- 002: indexes for the retention sweep (core/scheduler/retention.ts). Finding the runs and
-- audit rows older than the cutoff is then a range scan, so a daily sweep that finds nothing
-- left to delete costs a few index probes instead of a scan of every row.

CREATE INDEX runs_finished ON runs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX audit_at ON audit (at);
