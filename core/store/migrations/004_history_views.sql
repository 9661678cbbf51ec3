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
-- Date ranges are turned into id bounds by one probe each (ids grow with queued_at).
CREATE INDEX runs_queued ON runs (queued_at);

-- The hourly charts read this rollup, kept by triggers: runs and tokens per UTC hour of
-- queued_at, class and status. Grouping the runs themselves cost ~45 ms per chart at 86,000
-- runs a day; the rollup makes a 7-day chart a scan of at most 168 × 2 × 10 rows. Each run
-- write costs one or two extra small upserts.
CREATE TABLE run_hours (
  hour TEXT NOT NULL,
  class TEXT NOT NULL,
  status TEXT NOT NULL,
  runs INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  PRIMARY KEY (hour, class, status)
) WITHOUT ROWID;

INSERT INTO run_hours (hour, class, status, runs, tokens)
  SELECT substr(queued_at, 1, 13), class, status, COUNT(*),
         SUM(COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0))
    FROM runs GROUP BY 1, 2, 3;

CREATE TRIGGER run_hours_insert AFTER INSERT ON runs BEGIN
  INSERT INTO run_hours (hour, class, status, runs, tokens)
    VALUES (substr(NEW.queued_at, 1, 13), NEW.class, NEW.status, 1,
            COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0))
    ON CONFLICT (hour, class, status) DO UPDATE
      SET runs = runs + 1, tokens = tokens + excluded.tokens;
END;

CREATE TRIGGER run_hours_delete AFTER DELETE ON runs BEGIN
  UPDATE run_hours
     SET runs = runs - 1, tokens = tokens - (COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0))
   WHERE hour = substr(OLD.queued_at, 1, 13) AND class = OLD.class AND status = OLD.status;
  DELETE FROM run_hours
   WHERE hour = substr(OLD.queued_at, 1, 13) AND class = OLD.class AND status = OLD.status
     AND runs <= 0;
END;

CREATE TRIGGER run_hours_update AFTER UPDATE OF status, class, queued_at, tokens_in, tokens_out
  ON runs BEGIN
  UPDATE run_hours
     SET runs = runs - 1, tokens = tokens - (COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0))
   WHERE hour = substr(OLD.queued_at, 1, 13) AND class = OLD.class AND status = OLD.status;
  DELETE FROM run_hours
   WHERE hour = substr(OLD.queued_at, 1, 13) AND class = OLD.class AND status = OLD.status
     AND runs <= 0;
  INSERT INTO run_hours (hour, class, status, runs, tokens)
    VALUES (substr(NEW.queued_at, 1, 13), NEW.class, NEW.status, 1,
            COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0))
    ON CONFLICT (hour, class, status) DO UPDATE
      SET runs = runs + 1, tokens = tokens + excluded.tokens;
END;

-- /audit?actor=…, ?target=… (?action=… uses audit_action).
CREATE INDEX audit_actor ON audit (actor, id);
CREATE INDEX audit_target ON audit (target, id);
