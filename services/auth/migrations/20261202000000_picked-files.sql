-- Up Migration
-- The files a person chose for Sheetgate with the Google Picker on the dashboard
-- (GOOGLE_SCOPE_MODE=picked-files, docs/design.md §7.8). Google enforces the access (the Picker
-- records a drive.file grant for the app); this is what Sheetgate remembers of the choice, to list
-- it on the dashboard and let the person forget one. Gone with the account.
CREATE TABLE picked_files (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  file_id text NOT NULL CHECK (file_id ~ '^[A-Za-z0-9_-]{1,200}$'),
  name text NOT NULL CHECK (char_length(name) <= 500),
  mime_type text NOT NULL CHECK (char_length(mime_type) <= 200),
  picked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, file_id)
);

-- Down Migration
DROP TABLE picked_files;
