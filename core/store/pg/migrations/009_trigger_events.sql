-- PostgreSQL dialect of core/store/migrations/009_trigger_events.sql, the same step: BIGINT for every integer (ids
-- and counts fit a JavaScript number), TEXT COLLATE "C" so text compares byte by byte as in SQLite.
-- 009: replay protection by the event's own identity (issue 37). The webhook signature covers
-- only the body, and the delivery id is a header: a captured body re-sent with a new
-- X-GitHub-Delivery passed trigger_deliveries and fired again. A fired event is recorded here
-- under a key built from the signed body (repository, issue number, action, issue.updated_at;
-- core/recipes/webhook_event_key.ts), so the same event fires once whatever its delivery id.
-- Rows older than the replay window are forgotten; events that old are refused as stale.

CREATE TABLE trigger_events (
  trigger_id BIGINT NOT NULL REFERENCES recipe_triggers (id) ON DELETE CASCADE,
  event_key TEXT COLLATE "C" NOT NULL,
  delivery_id TEXT COLLATE "C" NOT NULL,
  received_at TEXT COLLATE "C" NOT NULL,
  job_id BIGINT,
  PRIMARY KEY (trigger_id, event_key)
);
CREATE INDEX trigger_events_received ON trigger_events (received_at);
