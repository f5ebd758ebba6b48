-- Up Migration
-- The person's Google Workspace domain: the `hd` claim of the verified ID token of their latest
-- Google sign-in, empty for a consumer (e.g. gmail.com) account, which Google sends no `hd` for,
-- and null while not known: people already signed up get theirs at their next sign-in. What
-- "outside the person's account" means for outbound actions (docs/design.md §4.3, §11.4).
ALTER TABLE users ADD COLUMN google_hosted_domain text CHECK (char_length(google_hosted_domain) <= 253);

-- Down Migration
ALTER TABLE users DROP COLUMN google_hosted_domain;
