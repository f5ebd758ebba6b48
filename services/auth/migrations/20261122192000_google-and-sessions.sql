-- Up Migration
-- A user's Google connection: the refresh token (encrypted with the auth key ring, the user id as
-- associated data, so a row copied to another user cannot be decrypted), what Google granted, and
-- whether Google still honours it. One connection per user.
CREATE TABLE google_connections (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  google_subject text NOT NULL,
  email text NOT NULL,
  -- Null only when Google answered without a refresh token and none was stored before.
  refresh_token_encrypted text,
  granted_scopes text[] NOT NULL DEFAULT '{}',
  -- True when the person unticked a Sheets or Drive scope at Google's consent screen.
  partial boolean NOT NULL DEFAULT false,
  -- reauth_required: Google refused the refresh token (invalid_grant); a new sign-in reconnects.
  status text NOT NULL CHECK (status IN ('connected', 'reauth_required')),
  connected_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Dashboard sessions. The cookie holds 256 random bits; only their SHA-256 is stored, so a
-- database dump cannot be replayed as a cookie.
CREATE TABLE dashboard_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  cookie_hash bytea NOT NULL UNIQUE,
  user_agent text,
  ip text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX dashboard_sessions_user_id ON dashboard_sessions (user_id) WHERE revoked_at IS NULL;
CREATE INDEX dashboard_sessions_expires_at ON dashboard_sessions (expires_at);

-- Down Migration
DROP TABLE dashboard_sessions;
DROP TABLE google_connections;
