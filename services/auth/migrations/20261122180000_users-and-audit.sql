-- Up Migration
-- Service users (one per Google account) and the audit log of security events.
-- Later migrations add Google connections, API keys and the provider's models.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  google_subject text NOT NULL UNIQUE,
  email text NOT NULL,
  display_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  kind text NOT NULL,
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  -- Never a secret: ids, client names, IP addresses, reasons.
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_events_user_id_occurred_at ON audit_events (user_id, occurred_at);

-- Down Migration
DROP TABLE audit_events;
DROP TABLE users;
