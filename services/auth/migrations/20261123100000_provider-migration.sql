-- Up Migration
-- Provider migration (src/provider-migration/): what an import from a retired provider carried over,
-- and the OAuth generation an operator advances to disconnect every OAuth app at once.

-- Which row of the retired provider became which Sheetgate row. A re-run of the import skips every
-- row listed here, so importing twice changes nothing.
CREATE TABLE legacy_imports (
  kind text NOT NULL CHECK (kind IN ('user', 'google_connection', 'session', 'api_key')),
  legacy_id text NOT NULL,
  sheetgate_id text NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, legacy_id)
);

-- Dashboard sessions of the retired provider, waiting for their browser to come back with the old
-- session cookie, which is then exchanged once for a Sheetgate session. Only the SHA-256 of the
-- old session token is kept, so a database dump cannot be replayed as a cookie.
CREATE TABLE legacy_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  exchanged_at timestamptz,
  imported_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX legacy_sessions_expires_at ON legacy_sessions (expires_at);

-- An imported API key keeps the retired provider's hash of its secret (Better Auth: unkeyed
-- SHA-256) until its first use, when Sheetgate's keyed hash replaces it.
ALTER TABLE api_keys ALTER COLUMN secret_hash DROP NOT NULL;
ALTER TABLE api_keys ADD COLUMN legacy_hash text;
CREATE UNIQUE INDEX api_keys_legacy_hash ON api_keys (legacy_hash) WHERE legacy_hash IS NOT NULL;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_has_a_hash CHECK (secret_hash IS NOT NULL OR legacy_hash IS NOT NULL);

-- When this person's OAuth apps were last disconnected by a provider upgrade (an import from the
-- retired provider, or an OAuth reset): the dashboard then explains that apps need adding again.
ALTER TABLE users ADD COLUMN oauth_reset_at timestamptz;

-- The OAuth generation. Advancing it (migrate:reset-oauth) ends every OAuth client, grant and
-- token at once; the newest row is the current generation.
CREATE TABLE oauth_generations (
  generation integer PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 200)
);
INSERT INTO oauth_generations (generation, reason) VALUES (1, 'first start');

-- Down Migration
DROP TABLE oauth_generations;
ALTER TABLE users DROP COLUMN oauth_reset_at;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_has_a_hash;
DROP INDEX api_keys_legacy_hash;
ALTER TABLE api_keys DROP COLUMN legacy_hash;
DELETE FROM api_keys WHERE secret_hash IS NULL;
ALTER TABLE api_keys ALTER COLUMN secret_hash SET NOT NULL;
DROP TABLE legacy_sessions;
DROP TABLE legacy_imports;
