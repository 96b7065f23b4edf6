-- Issue 31 (ADR 0046). The attempt that created a capture session, inserted in the same batch as the
-- session (and so its balance hold): a retry after a Worker died between that batch and the Idempotency-Key
-- record's answer replays the session rather than creating a second one. Kept 24 hours, like the record.
CREATE TABLE capture_session_creations (
  -- SHA-256 of "<organization>:<mode>:<Idempotency-Key>": the key itself is never stored.
  key_hash TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES capture_sessions(id) ON DELETE CASCADE,
  -- SHA-256 of the request body's canonical JSON, as the Idempotency-Key record holds it.
  request_hash TEXT NOT NULL,
  -- The capture token, AES-GCM under a key derived from the Idempotency-Key (base64 of IV and ciphertext).
  sealed_token TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX capture_session_creations_created_at ON capture_session_creations (created_at);

-- A delivery attempt is recorded as started before its request leaves and completed after its answer, so
-- that an attempt cut short by a Worker that died is still on record and resolved by the sweep.
ALTER TABLE webhook_attempts ADD COLUMN state TEXT NOT NULL DEFAULT 'completed' CHECK (state IN ('started', 'completed', 'interrupted'));
CREATE INDEX webhook_attempts_started ON webhook_attempts (started_at) WHERE state = 'started';
