-- 007: the provider preset a job names (issue 37 §1). A stored provider key is sent only to
-- the origin it was stored for; a job whose base_url is another origin runs with no stored key
-- unless it names the preset whose key was stored for that origin. '' = none named: the
-- child uses the operator's settings as they are.

ALTER TABLE jobs ADD COLUMN provider_preset TEXT NOT NULL DEFAULT '';
