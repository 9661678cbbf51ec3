-- 010: the money rollups (issue 30). Cost, tokens and run time, kept by triggers as runs are
-- written, so the dashboard's totals never read the runs:
--   run_usage_hours: the whole outpost per UTC hour of queued_at (the cost and run-time
--     charts, the day table of /runs as 24 hours a day, the landing page's "today");
--   run_usage_days: each job per UTC day (a job's today / 7 days / 30 days, at most 30 rows).
-- A run with a cost counts as priced; a run that used tokens but has no cost (a model with no
-- price) counts as unpriced, and its tokens still count: unpriced is shown, never summed as $0.
-- tokens_in leaves the prompt cache out, so the whole prompt is tokens_in +
-- cache_read_tokens + cache_write_tokens (migration 9); each is kept apart. A run's
-- contribution is spelled out in each trigger: SQLite triggers cannot share an expression.

CREATE TABLE run_usage_hours (
  hour TEXT NOT NULL PRIMARY KEY,
  runs INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  priced_runs INTEGER NOT NULL,
  unpriced_runs INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  tokens_in INTEGER NOT NULL,
  tokens_out INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE run_usage_days (
  job_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  runs INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  priced_runs INTEGER NOT NULL,
  unpriced_runs INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  tokens_in INTEGER NOT NULL,
  tokens_out INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (job_id, day)
) WITHOUT ROWID;

INSERT INTO run_usage_hours
  SELECT substr(queued_at, 1, 13), COUNT(*), SUM(status IN ('error', 'killed', 'lost')), SUM(cost_usd IS NOT NULL),
         SUM(cost_usd IS NULL AND COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0) > 0),
         COALESCE(SUM(cost_usd), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0),
         COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0),
         COALESCE(SUM(duration_ms), 0)
    FROM runs GROUP BY 1;

INSERT INTO run_usage_days
  SELECT job_id, substr(queued_at, 1, 10), COUNT(*), SUM(status IN ('error', 'killed', 'lost')), SUM(cost_usd IS NOT NULL),
         SUM(cost_usd IS NULL AND COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0) > 0),
         COALESCE(SUM(cost_usd), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0),
         COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0),
         COALESCE(SUM(duration_ms), 0)
    FROM runs GROUP BY 1, 2;

CREATE TRIGGER run_usage_insert AFTER INSERT ON runs BEGIN
  INSERT INTO run_usage_hours VALUES (
    substr(NEW.queued_at, 1, 13), 1, NEW.status IN ('error', 'killed', 'lost'), NEW.cost_usd IS NOT NULL,
    NEW.cost_usd IS NULL AND COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0) > 0,
    COALESCE(NEW.cost_usd, 0), COALESCE(NEW.tokens_in, 0), COALESCE(NEW.tokens_out, 0),
    COALESCE(NEW.cache_read_tokens, 0), COALESCE(NEW.cache_write_tokens, 0),
    COALESCE(NEW.duration_ms, 0))
  ON CONFLICT (hour) DO UPDATE SET
    runs = runs + 1, failed = failed + excluded.failed,
    priced_runs = priced_runs + excluded.priced_runs,
    unpriced_runs = unpriced_runs + excluded.unpriced_runs,
    cost_usd = cost_usd + excluded.cost_usd, tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    duration_ms = duration_ms + excluded.duration_ms;
  INSERT INTO run_usage_days VALUES (
    NEW.job_id, substr(NEW.queued_at, 1, 10), 1, NEW.status IN ('error', 'killed', 'lost'), NEW.cost_usd IS NOT NULL,
    NEW.cost_usd IS NULL AND COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0) > 0,
    COALESCE(NEW.cost_usd, 0), COALESCE(NEW.tokens_in, 0), COALESCE(NEW.tokens_out, 0),
    COALESCE(NEW.cache_read_tokens, 0), COALESCE(NEW.cache_write_tokens, 0),
    COALESCE(NEW.duration_ms, 0))
  ON CONFLICT (job_id, day) DO UPDATE SET
    runs = runs + 1, failed = failed + excluded.failed,
    priced_runs = priced_runs + excluded.priced_runs,
    unpriced_runs = unpriced_runs + excluded.unpriced_runs,
    cost_usd = cost_usd + excluded.cost_usd, tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    duration_ms = duration_ms + excluded.duration_ms;
END;

CREATE TRIGGER run_usage_delete AFTER DELETE ON runs BEGIN
  UPDATE run_usage_hours SET
    runs = runs - 1, failed = failed - (OLD.status IN ('error', 'killed', 'lost')),
    priced_runs = priced_runs - (OLD.cost_usd IS NOT NULL),
    unpriced_runs = unpriced_runs -
      (OLD.cost_usd IS NULL AND COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0) > 0),
    cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0),
    tokens_in = tokens_in - COALESCE(OLD.tokens_in, 0),
    tokens_out = tokens_out - COALESCE(OLD.tokens_out, 0),
    cache_read_tokens = cache_read_tokens - COALESCE(OLD.cache_read_tokens, 0),
    cache_write_tokens = cache_write_tokens - COALESCE(OLD.cache_write_tokens, 0),
    duration_ms = duration_ms - COALESCE(OLD.duration_ms, 0)
  WHERE hour = substr(OLD.queued_at, 1, 13);
  DELETE FROM run_usage_hours WHERE hour = substr(OLD.queued_at, 1, 13) AND runs <= 0;
  UPDATE run_usage_days SET
    runs = runs - 1, failed = failed - (OLD.status IN ('error', 'killed', 'lost')),
    priced_runs = priced_runs - (OLD.cost_usd IS NOT NULL),
    unpriced_runs = unpriced_runs -
      (OLD.cost_usd IS NULL AND COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0) > 0),
    cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0),
    tokens_in = tokens_in - COALESCE(OLD.tokens_in, 0),
    tokens_out = tokens_out - COALESCE(OLD.tokens_out, 0),
    cache_read_tokens = cache_read_tokens - COALESCE(OLD.cache_read_tokens, 0),
    cache_write_tokens = cache_write_tokens - COALESCE(OLD.cache_write_tokens, 0),
    duration_ms = duration_ms - COALESCE(OLD.duration_ms, 0)
  WHERE job_id = OLD.job_id AND day = substr(OLD.queued_at, 1, 10);
  DELETE FROM run_usage_days WHERE job_id = OLD.job_id AND day = substr(OLD.queued_at, 1, 10) AND runs <= 0;
END;

CREATE TRIGGER run_usage_update AFTER UPDATE OF status, queued_at, job_id, cost_usd, tokens_in,
  tokens_out, cache_read_tokens, cache_write_tokens, duration_ms ON runs BEGIN
  UPDATE run_usage_hours SET
    runs = runs - 1, failed = failed - (OLD.status IN ('error', 'killed', 'lost')),
    priced_runs = priced_runs - (OLD.cost_usd IS NOT NULL),
    unpriced_runs = unpriced_runs -
      (OLD.cost_usd IS NULL AND COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0) > 0),
    cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0),
    tokens_in = tokens_in - COALESCE(OLD.tokens_in, 0),
    tokens_out = tokens_out - COALESCE(OLD.tokens_out, 0),
    cache_read_tokens = cache_read_tokens - COALESCE(OLD.cache_read_tokens, 0),
    cache_write_tokens = cache_write_tokens - COALESCE(OLD.cache_write_tokens, 0),
    duration_ms = duration_ms - COALESCE(OLD.duration_ms, 0)
  WHERE hour = substr(OLD.queued_at, 1, 13);
  DELETE FROM run_usage_hours WHERE hour = substr(OLD.queued_at, 1, 13) AND runs <= 0;
  UPDATE run_usage_days SET
    runs = runs - 1, failed = failed - (OLD.status IN ('error', 'killed', 'lost')),
    priced_runs = priced_runs - (OLD.cost_usd IS NOT NULL),
    unpriced_runs = unpriced_runs -
      (OLD.cost_usd IS NULL AND COALESCE(OLD.tokens_in, 0) + COALESCE(OLD.tokens_out, 0) > 0),
    cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0),
    tokens_in = tokens_in - COALESCE(OLD.tokens_in, 0),
    tokens_out = tokens_out - COALESCE(OLD.tokens_out, 0),
    cache_read_tokens = cache_read_tokens - COALESCE(OLD.cache_read_tokens, 0),
    cache_write_tokens = cache_write_tokens - COALESCE(OLD.cache_write_tokens, 0),
    duration_ms = duration_ms - COALESCE(OLD.duration_ms, 0)
  WHERE job_id = OLD.job_id AND day = substr(OLD.queued_at, 1, 10);
  DELETE FROM run_usage_days WHERE job_id = OLD.job_id AND day = substr(OLD.queued_at, 1, 10) AND runs <= 0;
  INSERT INTO run_usage_hours VALUES (
    substr(NEW.queued_at, 1, 13), 1, NEW.status IN ('error', 'killed', 'lost'), NEW.cost_usd IS NOT NULL,
    NEW.cost_usd IS NULL AND COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0) > 0,
    COALESCE(NEW.cost_usd, 0), COALESCE(NEW.tokens_in, 0), COALESCE(NEW.tokens_out, 0),
    COALESCE(NEW.cache_read_tokens, 0), COALESCE(NEW.cache_write_tokens, 0),
    COALESCE(NEW.duration_ms, 0))
  ON CONFLICT (hour) DO UPDATE SET
    runs = runs + 1, failed = failed + excluded.failed,
    priced_runs = priced_runs + excluded.priced_runs,
    unpriced_runs = unpriced_runs + excluded.unpriced_runs,
    cost_usd = cost_usd + excluded.cost_usd, tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    duration_ms = duration_ms + excluded.duration_ms;
  INSERT INTO run_usage_days VALUES (
    NEW.job_id, substr(NEW.queued_at, 1, 10), 1, NEW.status IN ('error', 'killed', 'lost'), NEW.cost_usd IS NOT NULL,
    NEW.cost_usd IS NULL AND COALESCE(NEW.tokens_in, 0) + COALESCE(NEW.tokens_out, 0) > 0,
    COALESCE(NEW.cost_usd, 0), COALESCE(NEW.tokens_in, 0), COALESCE(NEW.tokens_out, 0),
    COALESCE(NEW.cache_read_tokens, 0), COALESCE(NEW.cache_write_tokens, 0),
    COALESCE(NEW.duration_ms, 0))
  ON CONFLICT (job_id, day) DO UPDATE SET
    runs = runs + 1, failed = failed + excluded.failed,
    priced_runs = priced_runs + excluded.priced_runs,
    unpriced_runs = unpriced_runs + excluded.unpriced_runs,
    cost_usd = cost_usd + excluded.cost_usd, tokens_in = tokens_in + excluded.tokens_in,
    tokens_out = tokens_out + excluded.tokens_out,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    duration_ms = duration_ms + excluded.duration_ms;
END;
