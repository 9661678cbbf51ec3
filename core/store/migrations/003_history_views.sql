-- 003: the dashboard's history views (issue 18). Each filter of /runs and /audit gets an
-- index that yields its rows newest first, so a page is a range scan of about `limit` rows
-- whatever the table size (sqlite_history_test.ts shows the plans). runs.model and
-- runs.duration_ms record what the run's headless JSON reported (`model`, `duration_ms`):
-- stored timestamps have whole seconds, so a 40 ms run would otherwise show as 0 s.

ALTER TABLE runs ADD COLUMN model TEXT;
ALTER TABLE runs ADD COLUMN duration_ms INTEGER;

-- /runs?status=…, ?class=…, ?class=…&status=…, ?job=…&status=… (?job=… alone uses runs_job).
CREATE INDEX runs_status_id ON runs (status, id);
CREATE INDEX runs_class_id ON runs (class, id);
CREATE INDEX runs_class_status_id ON runs (class, status, id);
CREATE INDEX runs_job_status_id ON runs (job_id, status, id);
-- Date ranges are turned into id bounds by one probe each (ids grow with queued_at), and
-- the runs-per-hour chart reads (queued_at, status) from this index alone.
CREATE INDEX runs_queued ON runs (queued_at, status);

-- /audit?actor=…, ?target=… (?action=… uses audit_action).
CREATE INDEX audit_actor ON audit (actor, id);
CREATE INDEX audit_target ON audit (target, id);
