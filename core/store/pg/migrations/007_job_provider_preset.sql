-- PostgreSQL dialect of core/store/migrations/007_job_provider_preset.sql, the same step: BIGINT for every integer (ids
-- and counts fit a JavaScript number), TEXT COLLATE "C" so text compares byte by byte as in SQLite.
-- 007: the provider preset a job names (issue 37 §1). A stored provider key is sent only to
-- the origin it was stored for; a job whose base_url is another origin runs with no stored key
-- unless it names the preset whose key was stored for that origin. '' = none named: the
-- child uses the operator's settings as they are.

ALTER TABLE jobs ADD COLUMN provider_preset TEXT COLLATE "C" NOT NULL DEFAULT '';
