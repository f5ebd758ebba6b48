-- Up Migration
-- Every oidc-provider model instance (clients, grants, sessions, refresh tokens, and the short-lived
-- ones when no Redis is configured) in one table, as the provider's adapter interface expects.
CREATE TABLE oidc_models (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_models_grant_id ON oidc_models (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_models_uid ON oidc_models (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oidc_models_user_code ON oidc_models (model, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oidc_models_expires_at ON oidc_models (expires_at) WHERE expires_at IS NOT NULL;

-- Access-token signing keys. Private parts are encrypted with the auth key ring.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_jwk_encrypted text NOT NULL,
  -- next: published in the JWKS, not yet signing; current: signs; retired: published until
  -- every token it signed has expired, then removed.
  state text NOT NULL CHECK (state IN ('next', 'current', 'retired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  activated_at timestamptz,
  retired_at timestamptz
);
CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys (state) WHERE state = 'current';

-- Down Migration
DROP TABLE signing_keys;
DROP TABLE oidc_models;
