-- The re-hash of every sealed stored object (issue 24 point 4, docs/adr/0037): one row per object a sealed proof
-- publishes (each signed file, manifest.json, proof.tsr, manifest.p7s, chain.pem), with the SHA-256 it must have
-- and what the latest re-hash found. The sweep takes the rows checked longest ago (never checked first) within
-- a row and byte budget per run; the public verdict reads a proof's rows instead of its files' bytes.
CREATE TABLE sealed_object_checks (
  object_key TEXT PRIMARY KEY,
  proof_id TEXT NOT NULL REFERENCES proofs (id),
  -- the object's name in the package: files/<id>.<ext>, manifest.json, proof.tsr, manifest.p7s, chain.pem
  entry TEXT NOT NULL,
  -- the file's id for a signed file, NULL for the proof's own artifacts
  file_id TEXT,
  -- signed_sha256 or manifest_sha256 as recorded at sealing; NULL for an artifact whose hash D1 does not
  -- hold (proof.tsr, manifest.p7s, chain.pem) until its first re-hash records it
  expected_sha256 TEXT,
  size INTEGER,
  -- NULL: not re-hashed yet
  last_checked_at TEXT,
  -- what the latest re-hash found (NULL: the object was missing, or not re-hashed yet)
  found_sha256 TEXT,
  -- 1 matched, 0 altered or missing, NULL not re-hashed yet
  matched INTEGER CHECK (matched IN (0, 1)),
  -- when the re-hash first found it altered or missing (NULL while it matches)
  mismatch_since TEXT
);
CREATE INDEX sealed_object_checks_due ON sealed_object_checks (last_checked_at, object_key);
CREATE INDEX sealed_object_checks_proof ON sealed_object_checks (proof_id);
CREATE INDEX sealed_object_checks_altered ON sealed_object_checks (mismatch_since, object_key) WHERE matched = 0;

-- Proofs whose objects the sweep has still to list: a proof is queued in the same statement that seals it,
-- whatever code seals it, as 0015 enrols evidence records.
CREATE TABLE sealed_object_enrolments (
  proof_id TEXT PRIMARY KEY REFERENCES proofs (id),
  sealed_at TEXT NOT NULL
);
CREATE INDEX sealed_object_enrolments_order ON sealed_object_enrolments (sealed_at);

CREATE TRIGGER proofs_sealed_enrol_object_checks AFTER UPDATE OF status ON proofs
WHEN NEW.status = 'sealed' AND OLD.status <> 'sealed'
BEGIN
  INSERT OR IGNORE INTO sealed_object_enrolments (proof_id, sealed_at) VALUES (NEW.id, COALESCE(NEW.sealed_at, NEW.updated_at));
END;

-- Proofs sealed before this migration are queued too.
INSERT OR IGNORE INTO sealed_object_enrolments (proof_id, sealed_at) SELECT id, COALESCE(sealed_at, updated_at) FROM proofs WHERE status = 'sealed';
