-- Up Migration
-- The person's two choices per credential (docs/design.md §11.10, issue 37): "May share and send
-- outside your account" (may_act_outbound, off unless chosen) and "A client that cannot ask me may
-- delete and clear without asking" (may_destroy_unasked, on unless chosen). Read by the MCP service
-- through CallConsentService on each call that needs them, never from a token.
--
-- An API key's are columns of its row: every key, those created before included, has the defaults
-- (a constant default: no table rewrite).
ALTER TABLE api_keys
  ADD COLUMN may_act_outbound boolean NOT NULL DEFAULT false,
  ADD COLUMN may_destroy_unasked boolean NOT NULL DEFAULT true;

-- A connected app's are per person and app, chosen on the consent screen or the dashboard, replaced
-- by each re-consent that showed them, dropped on disconnect. A table of its own rather than columns
-- of app_toolsets: an app may have choices without toolsets (connected before toolsets, then
-- changed on the dashboard) and toolsets without choices (connected before these), and a row of
-- app_toolsets means "these sets" where none means "every set". No row here: the defaults.
CREATE TABLE app_choices (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 2048),
  may_act_outbound boolean NOT NULL,
  may_destroy_unasked boolean NOT NULL,
  chosen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, client_id)
);

-- Down Migration
DROP TABLE app_choices;
ALTER TABLE api_keys DROP COLUMN may_destroy_unasked, DROP COLUMN may_act_outbound;
