-- Up Migration
-- The change journal (docs/design.md §11.8): one row per successful write made through Sheetgate,
-- per person. The payload (before- and after-images of the cells, enough of a deleted tab to
-- recreate it) is sealed with the key ring like Google refresh tokens (bound to the person and the
-- entry id); the rest is what the dashboard and list_changes show. Rows older than
-- CHANGE_JOURNAL_RETENTION_DAYS are purged by auth's sweep, and all go with the account.
CREATE TABLE change_journal (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  occurred_at timestamptz NOT NULL,
  credential_kind text NOT NULL CHECK (credential_kind IN ('api_key', 'app', 'dashboard')),
  credential_id text NOT NULL CHECK (char_length(credential_id) <= 200),
  tool text NOT NULL CHECK (char_length(tool) BETWEEN 1 AND 64),
  spreadsheet_id text NOT NULL CHECK (char_length(spreadsheet_id) <= 200),
  ranges text[] NOT NULL CHECK (cardinality(ranges) <= 100),
  cells bigint NOT NULL CHECK (cells >= 0),
  rows bigint NOT NULL CHECK (rows >= 0),
  undoable boolean NOT NULL,
  undo_unavailable_reason text NOT NULL DEFAULT '' CHECK (char_length(undo_unavailable_reason) <= 500),
  -- v1.<keyId>.<iv>.<tag>.<ciphertext>; null when there is nothing to undo with.
  payload_sealed text,
  -- Bytes of the payload before sealing: the per-person bound counts these.
  payload_bytes integer NOT NULL DEFAULT 0 CHECK (payload_bytes >= 0),
  undoes_change_id uuid,
  undone_at timestamptz,
  undone_by_change_id uuid,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX change_journal_user_time ON change_journal (user_id, occurred_at DESC, id DESC);
CREATE INDEX change_journal_user_spreadsheet ON change_journal (user_id, spreadsheet_id, occurred_at DESC);
CREATE INDEX change_journal_occurred_at ON change_journal (occurred_at);

-- Down Migration
DROP TABLE change_journal;
