-- Up Migration
-- What the MCP replicas must refuse although the access tokens verify (services/auth/README.md,
-- "Revocation at the edge"): revoked grants, persons whose grants were all revoked, withdrawn
-- signing keys, provider resets. Kept so the snapshot a replica gets on connecting is right after
-- auth restarts; a row is deleted once every access token it could refuse has expired
-- (`covers_until`). `subject` is the grant id, the user id, the key id, or '' for a reset.
CREATE TABLE edge_revocations (
  kind text NOT NULL CHECK (kind IN ('grant', 'person', 'signing_key', 'provider_reset')),
  subject text NOT NULL,
  revoked_at timestamptz NOT NULL,
  covers_until timestamptz NOT NULL,
  PRIMARY KEY (kind, subject)
);
CREATE INDEX edge_revocations_covers_until ON edge_revocations (covers_until);

-- Down Migration
DROP TABLE edge_revocations;
