-- The core of the service: capture sessions, the files they receive, the proofs they become, and the
-- event log (outbox) that webhooks deliver from. Balance promises are the rows with holds_reservation = 1.

CREATE TABLE capture_sessions (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  status TEXT NOT NULL CHECK (status IN ('open', 'completed', 'expired', 'rejected')),
  -- SHA-256 of the capture token; the token itself is only in capture_url.
  token_hash TEXT NOT NULL UNIQUE,
  external_reference TEXT NOT NULL,
  party TEXT NOT NULL CHECK (party IN ('provider', 'recipient')),
  stage TEXT,
  category TEXT,
  template_id TEXT,
  -- The session's own copy of the template it was created with (JSON), and the SHA-256 of that JSON.
  template_snapshot TEXT NOT NULL,
  template_sha256 TEXT NOT NULL,
  locale TEXT NOT NULL,
  location_reference TEXT,
  return_url TEXT,
  compare_to TEXT,
  -- 1 while this session is a live promise on the balance (open live session).
  holds_reservation INTEGER NOT NULL DEFAULT 0,
  proof_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  completed_at TEXT,
  rejected_at TEXT
);
CREATE INDEX capture_sessions_open_expiry ON capture_sessions (status, expires_at);
CREATE INDEX capture_sessions_reservations ON capture_sessions (organization_id, holds_reservation) WHERE holds_reservation = 1;
CREATE INDEX capture_sessions_compare_to ON capture_sessions (compare_to) WHERE compare_to IS NOT NULL;

CREATE TABLE proofs (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'sealed', 'failed')),
  session_id TEXT NOT NULL UNIQUE REFERENCES capture_sessions(id),
  external_reference TEXT NOT NULL,
  party TEXT NOT NULL,
  stage TEXT,
  category TEXT,
  location_reference TEXT,
  template_id TEXT,
  template_sha256 TEXT NOT NULL,
  -- "after" points at its "before"; the "before" records which "after" took it (UNIQUE: at most one partner).
  compare_to TEXT UNIQUE REFERENCES proofs(id),
  compared_by TEXT UNIQUE REFERENCES proofs(id),
  -- 1 while this live proof is promised on the balance (pending); consumed on seal, released on failure.
  holds_reservation INTEGER NOT NULL DEFAULT 0,
  manifest_sha256 TEXT,
  timestamp_gen_time TEXT,
  timestamp_qualified INTEGER,
  timestamp_authority TEXT,
  timestamp_serial TEXT,
  timestamp_policy TEXT,
  failure_code TEXT,
  failure_message TEXT,
  seal_attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sealed_at TEXT,
  failed_at TEXT
);
CREATE INDEX proofs_list ON proofs (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX proofs_reference ON proofs (organization_id, mode, external_reference, created_at DESC, id DESC);
CREATE INDEX proofs_reservations ON proofs (organization_id, holds_reservation) WHERE holds_reservation = 1;
CREATE INDEX proofs_manifest ON proofs (manifest_sha256);

CREATE TABLE files (
  id TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES capture_sessions(id),
  proof_id TEXT REFERENCES proofs(id),
  step_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('photo', 'video')),
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  -- SHA-256 declared by the phone, checked by storage on upload and again by the sealer.
  sha256 TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('declared', 'uploaded', 'deleted')),
  capture_context TEXT,
  original_key TEXT NOT NULL,
  multipart_upload_id TEXT,
  signed_key TEXT,
  signed_sha256 TEXT,
  signed_size INTEGER,
  sniffed_type TEXT,
  prior_c2pa INTEGER,
  created_at TEXT NOT NULL,
  -- When the service observed the complete file in storage (`captured_at` of the proof's file).
  captured_at TEXT
);
CREATE INDEX files_session ON files (session_id, created_at);
CREATE INDEX files_proof ON files (proof_id);
CREATE INDEX files_sha256 ON files (sha256);
CREATE INDEX files_signed_sha256 ON files (signed_sha256);

-- The outbox: every event is written here in the same batch as the state change that caused it.
CREATE TABLE events (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  type TEXT NOT NULL,
  -- The exact fields of the event body after `event`, as JSON.
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_list ON events (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX events_type ON events (organization_id, mode, type, created_at DESC, id DESC);
