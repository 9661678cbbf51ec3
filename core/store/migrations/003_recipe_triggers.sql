-- 003: trigger-bound recipes (spec 2.7, issue-triage). A trigger row holds what every fire
-- needs: the prompt rendered at enable time (frozen, like a recipe-made job's), the job
-- settings, and the repository it accepts deliveries from. The webhook secret is never
-- stored: it is derived from the install's trigger key (<home>/outpost/trigger_key) and the
-- row's salt, so a copy of the database cannot forge deliveries.

CREATE TABLE recipe_triggers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recipe_id TEXT NOT NULL,
  recipe_version INTEGER NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('github')),
  repo TEXT NOT NULL,
  name TEXT NOT NULL,
  prompt TEXT NOT NULL,
  job TEXT NOT NULL DEFAULT '{}',
  config TEXT NOT NULL DEFAULT '{}',
  salt TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX recipe_triggers_recipe ON recipe_triggers (recipe_id, enabled);

-- One row per accepted delivery id, so a replayed delivery is recognised and ignored.
CREATE TABLE trigger_deliveries (
  trigger_id INTEGER NOT NULL REFERENCES recipe_triggers (id) ON DELETE CASCADE,
  delivery_id TEXT NOT NULL,
  received_at TEXT NOT NULL,
  job_id INTEGER,
  PRIMARY KEY (trigger_id, delivery_id)
);
CREATE INDEX trigger_deliveries_received ON trigger_deliveries (received_at);
