-- Up Migration
-- The person's Google Workspace domain: the `hd` claim of the verified ID token of their latest
-- Google sign-in, null for a consumer (e.g. gmail.com) account, which Google sends no `hd` for.
-- What "outside the person's account" means for outbound actions (docs/design.md §11). People
-- already signed up get theirs at their next sign-in.
ALTER TABLE users ADD COLUMN google_hosted_domain text CHECK (char_length(google_hosted_domain) <= 253);

-- Down Migration
ALTER TABLE users DROP COLUMN google_hosted_domain;
