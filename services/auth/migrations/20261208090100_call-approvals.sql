-- Up Migration
-- Calls waiting for the person's answer on the approval page (URL-mode elicitation, docs/design.md
-- §11.10): created by the MCP service (CallConsentService.CreateCallApproval), answered once by the
-- signed-in person (AccountService.AnswerCallApproval: the first answer of a pending, unexpired
-- approval wins), read back when the client retries. A pending one past expires_at reads as
-- expired; every row is deleted by the sweep an hour after it expires. The id is 128 random bits,
-- unpadded base64url; the credential is exactly one of an API key and an OAuth client.
CREATE TABLE call_approvals (
  id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{22}$'),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  api_key_id uuid REFERENCES api_keys (id) ON DELETE CASCADE,
  client_id text CHECK (char_length(client_id) BETWEEN 1 AND 2048),
  tool text NOT NULL CHECK (char_length(tool) BETWEEN 1 AND 100),
  sentence text NOT NULL CHECK (char_length(sentence) BETWEEN 1 AND 4000),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'declined')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  answered_at timestamptz,
  CHECK (num_nonnulls(api_key_id, client_id) = 1),
  CHECK ((state = 'pending') = (answered_at IS NULL))
);
-- The sweep deletes by expiry.
CREATE INDEX call_approvals_expires_at ON call_approvals (expires_at);

-- Down Migration
DROP TABLE call_approvals;
