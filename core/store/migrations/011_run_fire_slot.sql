-- 011: a scheduled fire's own identity (issue 32). A run written by a tick records the slot it
-- was fired for (the job's next_run_at at that tick); a unique index on (job_id, slot) makes the
-- database refuse a second first attempt for the same slot, so a slot can never become two runs,
-- whichever node or code path tries. Retries carry the slot they retry (attempt > 1, outside the
-- index); manual triggers, resumes and one-shots are no fire and have no slot. A run cancelled
-- while queued gives its slot back (the cancel clears it): re-enabling a cancelled `at` job fires
-- that slot again (the documented behaviour of enable). The index reads no column a run's
-- progress updates (status, pid, times), so those writes never touch it: a single box pays for it
-- once per fire. Runs written before this step keep a NULL slot.

ALTER TABLE runs ADD COLUMN slot TEXT;
CREATE UNIQUE INDEX runs_fire_slot ON runs (job_id, slot)
  WHERE slot IS NOT NULL AND attempt = 1;
