-- Up Migration
-- What a change did, in the words the activity log shows (docs/design.md §11.8): "wrote 12 cells
-- of Sheet1!A1:C4", "deleted the tab 'Q3' (1,200 rows, 4,312 cells)". Plain text the MCP service
-- writes, never the cells' contents; entries recorded before it existed have none (empty).
ALTER TABLE change_journal
  ADD COLUMN summary text NOT NULL DEFAULT '' CHECK (char_length(summary) <= 300);

-- Down Migration
ALTER TABLE change_journal DROP COLUMN summary;
