-- Up Migration
-- The toolsets a person chose for a connected app on the consent screen (docs/design.md §11,
-- "Toolsets"), carried into its access tokens as the `toolsets` claim. One choice per person and
-- app, kept across re-consents and dropped when the person disconnects the app. No row, as every
-- app connected before this table has, means every set. Names are checked by auth, not here.
CREATE TABLE app_toolsets (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  toolsets text[] NOT NULL CHECK (cardinality(toolsets) >= 1),
  chosen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, client_id)
);

-- Down Migration
DROP TABLE app_toolsets;
