-- PostgreSQL dialect of core/store/migrations/004_history_views.sql, the same step. The
-- run_hours rollup is kept by one trigger function (PL/pgSQL) instead of SQLite's three
-- trigger bodies; the index hints of the SQLite statements are dropped (pg/pg_dialect.ts), so
-- these indexes are the planner's to choose.

ALTER TABLE runs ADD COLUMN model TEXT COLLATE "C";
ALTER TABLE runs ADD COLUMN duration_ms BIGINT;

CREATE INDEX runs_status_id ON runs (status, id);
CREATE INDEX runs_class_id ON runs (class, id);
CREATE INDEX runs_class_status_id ON runs (class, status, id);
CREATE INDEX runs_job_status_id ON runs (job_id, status, id);
CREATE INDEX runs_queued ON runs (queued_at);

CREATE TABLE run_hours (
  hour TEXT COLLATE "C" NOT NULL,
  class TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  runs BIGINT NOT NULL,
  tokens BIGINT NOT NULL,
  PRIMARY KEY (hour, class, status)
);

INSERT INTO run_hours (hour, class, status, runs, tokens)
  SELECT substr(queued_at, 1, 13), class, status, COUNT(*),
         SUM(COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0))
    FROM runs GROUP BY 1, 2, 3;

CREATE FUNCTION run_hours_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE run_hours
       SET runs = runs - 1,
           tokens = tokens - (COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0))
     WHERE hour = substr(OLD.queued_at, 1, 13) AND class = OLD.class AND status = OLD.status;
    DELETE FROM run_hours
     WHERE hour = substr(OLD.queued_at, 1, 13) AND class = OLD.class AND status = OLD.status
       AND runs <= 0;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO run_hours AS h (hour, class, status, runs, tokens)
      VALUES (substr(NEW.queued_at, 1, 13), NEW.class, NEW.status, 1,
              COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0))
      ON CONFLICT (hour, class, status) DO UPDATE
        SET runs = h.runs + 1, tokens = h.tokens + excluded.tokens;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER run_hours_insert AFTER INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION run_hours_keep();
CREATE TRIGGER run_hours_delete AFTER DELETE ON runs
  FOR EACH ROW EXECUTE FUNCTION run_hours_keep();
CREATE TRIGGER run_hours_update AFTER UPDATE OF status, class, queued_at, tokens_in, tokens_out
  ON runs FOR EACH ROW EXECUTE FUNCTION run_hours_keep();

CREATE INDEX audit_actor ON audit (actor, id);
CREATE INDEX audit_target ON audit (target, id);
