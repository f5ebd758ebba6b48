-- Up Migration
-- When the person behind a dashboard session signed in at Google: the `auth_time` of the ID tokens
-- issued from that session, and what `max_age` and `prompt=login` are judged against. Sessions
-- already open were started by their sign-in.
ALTER TABLE dashboard_sessions ADD COLUMN signed_in_at timestamptz NOT NULL DEFAULT now();
UPDATE dashboard_sessions SET signed_in_at = created_at;

-- Down Migration
ALTER TABLE dashboard_sessions DROP COLUMN signed_in_at;
