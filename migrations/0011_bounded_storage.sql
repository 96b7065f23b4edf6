-- Bounded storage (issue 15, ADR 0010).
--
-- Template snapshots are stored once per content: a session keeps `template_sha256` (the SHA-256 of the
-- snapshot's canonical JSON, which proofs and their manifests already carry) and the JSON itself lives
-- once in template_snapshots, shared by every session and proof made from that content. Sessions used to
-- copy the whole template into their own row (up to hundreds of KB each).
CREATE TABLE template_snapshots (
  sha256 TEXT PRIMARY KEY NOT NULL,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL
);
-- Every session's template_sha256 is the SHA-256 of its template_snapshot, so one copy per hash is exact.
INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at)
  SELECT template_sha256, template_snapshot, MIN(created_at) FROM capture_sessions GROUP BY template_sha256;
ALTER TABLE capture_sessions DROP COLUMN template_snapshot;
-- The retention sweep deletes a snapshot once no session refers to it any more.
CREATE INDEX capture_sessions_template_sha256 ON capture_sessions (template_sha256);

-- Webhook delivery bodies are kept 30 days (src/retention.ts); then request_body becomes '' (a body is
-- never empty JSON), response_body_start NULL, and body_deleted_at says when. The partial index holds only
-- the deliveries whose body is still kept, so the sweep finds the old ones without a scan.
ALTER TABLE webhook_deliveries ADD COLUMN body_deleted_at TEXT;
CREATE INDEX webhook_deliveries_body_kept ON webhook_deliveries (created_at) WHERE body_deleted_at IS NULL;
