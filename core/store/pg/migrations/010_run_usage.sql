-- PostgreSQL dialect of core/store/migrations/010_run_usage.sql, the same step: the money
-- rollups run_usage_hours (the outpost per UTC hour of queued_at) and run_usage_days (each job
-- per UTC day), kept by one PL/pgSQL trigger function as runs are written. A run's
-- contribution is computed once (run_usage_add) and added with sign +1 or -1: SQLite's three
-- trigger bodies spell it out each time because its triggers cannot share an expression.
-- BIGINT for every count, DOUBLE PRECISION for cost, TEXT COLLATE "C" as in every step.

CREATE TABLE run_usage_hours (
  hour TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  runs BIGINT NOT NULL,
  failed BIGINT NOT NULL,
  priced_runs BIGINT NOT NULL,
  unpriced_runs BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  cache_read_tokens BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  duration_ms BIGINT NOT NULL
);

CREATE TABLE run_usage_days (
  job_id BIGINT NOT NULL,
  day TEXT COLLATE "C" NOT NULL,
  runs BIGINT NOT NULL,
  failed BIGINT NOT NULL,
  priced_runs BIGINT NOT NULL,
  unpriced_runs BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  tokens_in BIGINT NOT NULL,
  tokens_out BIGINT NOT NULL,
  cache_read_tokens BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  duration_ms BIGINT NOT NULL,
  PRIMARY KEY (job_id, day)
);

INSERT INTO run_usage_hours
  SELECT substr(queued_at, 1, 13), COUNT(*),
         COUNT(*) FILTER (WHERE status IN ('error', 'killed', 'lost')), COUNT(cost_usd),
         COUNT(*) FILTER (WHERE cost_usd IS NULL
                            AND COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0) > 0),
         COALESCE(SUM(cost_usd), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0),
         COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0),
         COALESCE(SUM(duration_ms), 0)
    FROM runs GROUP BY 1;

INSERT INTO run_usage_days
  SELECT job_id, substr(queued_at, 1, 10), COUNT(*),
         COUNT(*) FILTER (WHERE status IN ('error', 'killed', 'lost')), COUNT(cost_usd),
         COUNT(*) FILTER (WHERE cost_usd IS NULL
                            AND COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0) > 0),
         COALESCE(SUM(cost_usd), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0),
         COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0),
         COALESCE(SUM(duration_ms), 0)
    FROM runs GROUP BY 1, 2;

-- Adds (sign 1) or takes away (sign -1) one run's contribution; a row left with no runs goes.
CREATE FUNCTION run_usage_add(r runs, sign BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  f BIGINT := (r.status IN ('error', 'killed', 'lost'))::int;
  p BIGINT := (r.cost_usd IS NOT NULL)::int;
  u BIGINT := (r.cost_usd IS NULL
               AND COALESCE(r.tokens_in, 0) + COALESCE(r.tokens_out, 0) > 0)::int;
BEGIN
  INSERT INTO run_usage_hours AS h VALUES (
    substr(r.queued_at, 1, 13), sign, sign * f, sign * p, sign * u,
    sign * COALESCE(r.cost_usd, 0), sign * COALESCE(r.tokens_in, 0),
    sign * COALESCE(r.tokens_out, 0), sign * COALESCE(r.cache_read_tokens, 0),
    sign * COALESCE(r.cache_write_tokens, 0), sign * COALESCE(r.duration_ms, 0))
  ON CONFLICT (hour) DO UPDATE SET
    runs = h.runs + excluded.runs, failed = h.failed + excluded.failed,
    priced_runs = h.priced_runs + excluded.priced_runs,
    unpriced_runs = h.unpriced_runs + excluded.unpriced_runs,
    cost_usd = h.cost_usd + excluded.cost_usd, tokens_in = h.tokens_in + excluded.tokens_in,
    tokens_out = h.tokens_out + excluded.tokens_out,
    cache_read_tokens = h.cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = h.cache_write_tokens + excluded.cache_write_tokens,
    duration_ms = h.duration_ms + excluded.duration_ms;
  DELETE FROM run_usage_hours WHERE hour = substr(r.queued_at, 1, 13) AND runs <= 0;
  INSERT INTO run_usage_days AS d VALUES (
    r.job_id, substr(r.queued_at, 1, 10), sign, sign * f, sign * p, sign * u,
    sign * COALESCE(r.cost_usd, 0), sign * COALESCE(r.tokens_in, 0),
    sign * COALESCE(r.tokens_out, 0), sign * COALESCE(r.cache_read_tokens, 0),
    sign * COALESCE(r.cache_write_tokens, 0), sign * COALESCE(r.duration_ms, 0))
  ON CONFLICT (job_id, day) DO UPDATE SET
    runs = d.runs + excluded.runs, failed = d.failed + excluded.failed,
    priced_runs = d.priced_runs + excluded.priced_runs,
    unpriced_runs = d.unpriced_runs + excluded.unpriced_runs,
    cost_usd = d.cost_usd + excluded.cost_usd, tokens_in = d.tokens_in + excluded.tokens_in,
    tokens_out = d.tokens_out + excluded.tokens_out,
    cache_read_tokens = d.cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = d.cache_write_tokens + excluded.cache_write_tokens,
    duration_ms = d.duration_ms + excluded.duration_ms;
  DELETE FROM run_usage_days
   WHERE job_id = r.job_id AND day = substr(r.queued_at, 1, 10) AND runs <= 0;
END;
$$;

CREATE FUNCTION run_usage_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM run_usage_add(OLD, -1); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM run_usage_add(NEW, 1); END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER run_usage_insert AFTER INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION run_usage_keep();
CREATE TRIGGER run_usage_delete AFTER DELETE ON runs
  FOR EACH ROW EXECUTE FUNCTION run_usage_keep();
CREATE TRIGGER run_usage_update AFTER UPDATE OF status, queued_at, job_id, cost_usd, tokens_in,
  tokens_out, cache_read_tokens, cache_write_tokens, duration_ms ON runs
  FOR EACH ROW EXECUTE FUNCTION run_usage_keep();
