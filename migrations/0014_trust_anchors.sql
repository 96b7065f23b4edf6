-- Every root the service's proofs have chained to (timestamp authorities' and C2PA signing roots), recorded
-- when a proof is sealed, so that GET /v1/public/trust-anchors lists current and past roots with their
-- SHA-256 fingerprints for verifiers to pin (issue 14). Keyed by the fingerprint: a root is listed once.
CREATE TABLE trust_anchors (
  sha256 TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('timestamp_authority', 'c2pa')),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  subject TEXT NOT NULL,
  pem TEXT NOT NULL,
  first_sealed_at TEXT NOT NULL,
  last_sealed_at TEXT NOT NULL
);
