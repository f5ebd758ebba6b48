-- Up Migration
-- Rate-limit counters (used when no Redis is configured) are counted on every API-key request and
-- every /api/auth request. As a logged table each count was a durable commit (a WAL flush) on a hot
-- row; the counters are losable state (docs/design.md §5: what a crash may lose), so the table
-- skips the WAL: a crash empties it, which only forgives the current windows.
ALTER TABLE rate_limits SET UNLOGGED;

-- Down Migration
ALTER TABLE rate_limits SET LOGGED;
