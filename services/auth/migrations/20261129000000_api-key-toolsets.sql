-- Up Migration
-- The toolsets an API key enables (docs/design.md §11, "Toolsets"): names from @sheetgate/proto's
-- TOOLSETS, checked by auth (not here, so a new set needs no migration). Null, as every key created
-- before this column has, means every set.
ALTER TABLE api_keys ADD COLUMN toolsets text[] CHECK (toolsets IS NULL OR cardinality(toolsets) >= 1);

-- Down Migration
ALTER TABLE api_keys DROP COLUMN toolsets;
