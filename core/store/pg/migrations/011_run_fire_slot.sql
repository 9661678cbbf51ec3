-- PostgreSQL dialect of core/store/migrations/011_run_fire_slot.sql, the same step: the slot a
-- scheduled run was fired for, and the unique index that refuses a second first attempt for the
-- same (job, slot). TEXT COLLATE "C" as in every step.

ALTER TABLE runs ADD COLUMN slot TEXT COLLATE "C";
CREATE UNIQUE INDEX runs_fire_slot ON runs (job_id, slot)
  WHERE slot IS NOT NULL AND attempt = 1;
