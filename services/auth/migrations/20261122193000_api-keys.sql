-- Up Migration
-- API keys. Only an HMAC-SHA-256 of the key (keyed with API_KEY_PEPPER, hex) and a short display
-- prefix are stored: a database dump alone can neither reveal nor verify a key.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  display_prefix text NOT NULL CHECK (char_length(display_prefix) <= 16),
  secret_hash text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  scopes text[] NOT NULL CHECK (
    scopes = ARRAY['sheets:read']::text[] OR scopes = ARRAY['sheets:read', 'sheets:write']::text[]
  ),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Null: the key never expires.
  expires_at timestamptz,
  revoked_at timestamptz,
  -- Written in batches, so it lags real use by a few seconds.
  last_used_at timestamptz
);
-- Keys are found by their hash on every API-key request.
CREATE UNIQUE INDEX api_keys_secret_hash ON api_keys (secret_hash);
CREATE INDEX api_keys_user_id_created_at ON api_keys (user_id, created_at);

-- Rate-limit counters when no Redis is configured (rate-limiter-flexible's RateLimiterPostgres
-- layout, created here rather than by the library at run time; `key` is text, not varchar(255),
-- so long account identifiers fit).
CREATE TABLE rate_limits (
  key text PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  -- Milliseconds since the epoch; the library compares it with Date.now().
  expire bigint
);
CREATE INDEX rate_limits_expire ON rate_limits (expire);

-- Down Migration
DROP TABLE rate_limits;
DROP TABLE api_keys;
