-- 001: every table the outpost needs, so later features add columns, not a second store.
-- Timestamps are UTC ISO-8601 text with Z; JSON columns hold text.

CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  prompt TEXT NOT NULL,
  schedule_kind TEXT NOT NULL CHECK (schedule_kind IN ('every', 'cron', 'at')),
  schedule_expr TEXT NOT NULL,
  schedule_tz TEXT NOT NULL DEFAULT 'UTC',
  workdir TEXT NOT NULL,
  mode TEXT NOT NULL DEFAULT 'auto' CHECK (mode IN ('auto', 'strict')),
  timeout_s INTEGER NOT NULL,
  max_retries INTEGER NOT NULL DEFAULT 3,
  token_budget INTEGER,
  priority INTEGER CHECK (priority IS NULL OR priority BETWEEN 1 AND 100),
  output_surface TEXT NOT NULL DEFAULT '' CHECK (output_surface IN ('messenger', '')),
  base_url TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL DEFAULT 1,
  recipe_id TEXT,
  recipe_version INTEGER,
  next_run_at TEXT,
  class TEXT NOT NULL DEFAULT 'scheduled' CHECK (class IN ('scheduled', 'api')),
  failure_count INTEGER NOT NULL DEFAULT 0,
  dead_letter_reason TEXT,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX jobs_due ON jobs (next_run_at) WHERE enabled = 1 AND next_run_at IS NOT NULL;

CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN (
    'queued', 'running', 'ok', 'error', 'needs_human', 'skipped', 'skipped_drift',
    'killed', 'lost', 'cancelled'
  )),
  attempt INTEGER NOT NULL DEFAULT 1,
  exit_code INTEGER,
  reason TEXT,
  queued_at TEXT NOT NULL,
  not_before TEXT,
  started_at TEXT,
  finished_at TEXT,
  pid INTEGER,
  pid_start TEXT,
  report_path TEXT,
  session_id TEXT,
  tokens_in INTEGER,
  tokens_out INTEGER,
  cost_usd REAL,
  cancelled_at TEXT,
  resume_of_run INTEGER,
  answer TEXT,
  priority INTEGER NOT NULL,
  class TEXT NOT NULL CHECK (class IN ('scheduled', 'api'))
);
-- Latest run per job (job list) and a job's history, newest first.
CREATE INDEX runs_job ON runs (job_id, id);
-- Live runs only (partial indexes stay tiny, and the many finished and skipped rows cost
-- nothing to insert): a job's in-flight run for single-flight checks, and the queue in
-- admission order plus startup recovery.
CREATE INDEX runs_in_flight ON runs (job_id, id) WHERE status IN ('queued', 'running');
CREATE INDEX runs_live ON runs (status, priority, queued_at, id)
  WHERE status IN ('queued', 'running');
-- The governor's rolling tokens-per-hour window: runs that reported usage.
CREATE INDEX runs_tokens ON runs (class, finished_at, tokens_in, tokens_out)
  WHERE tokens_in IS NOT NULL OR tokens_out IS NOT NULL;

CREATE TABLE inbox_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  questions TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'answered', 'dismissed')),
  answer TEXT,
  answered_via TEXT,
  answered_at TEXT,
  held_json TEXT,
  meta TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX inbox_state ON inbox_items (state, id);
CREATE INDEX inbox_run ON inbox_items (run_id);

CREATE TABLE audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  actor TEXT NOT NULL DEFAULT '',
  detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_action ON audit (action, id);

CREATE TABLE push_subscriptions (
  endpoint TEXT PRIMARY KEY,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_success_at TEXT,
  failure_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE machine_tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
