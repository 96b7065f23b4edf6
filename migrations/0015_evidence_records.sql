-- RFC 4998 evidence records (issue 14 point 5, docs/adr/0022): one row per sealed proof, saying where its DER
-- EvidenceRecord is in R2 and when its next archive timestamp is due. The renewal sweep claims due rows
-- (claimed_until, claim) before it works, so two sweeps never renew the same proof twice.
CREATE TABLE evidence_records (
  proof_id TEXT PRIMARY KEY REFERENCES proofs (id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  -- null until the first archive timestamp is stored
  record_key TEXT,
  archive_timestamps INTEGER NOT NULL DEFAULT 0,
  -- the digest algorithm of the latest chain; another one configured means a hash-tree renewal is due
  hash_algorithm TEXT,
  -- gen_time of the latest archive timestamp, and when its authority's certificate expires
  renewed_at TEXT,
  authority_expires_at TEXT,
  due_at TEXT NOT NULL,
  claimed_until TEXT,
  claim TEXT
);
CREATE INDEX evidence_records_due ON evidence_records (mode, due_at);
CREATE INDEX evidence_records_hash ON evidence_records (hash_algorithm);

-- A proof is enrolled in the same statement that seals it, whatever code seals it: due at once (the sweep
-- gathers due proofs into batches, ADR 0022).
CREATE TRIGGER proofs_sealed_enrol_evidence AFTER UPDATE OF status ON proofs
WHEN NEW.status = 'sealed' AND OLD.status <> 'sealed'
BEGIN
  INSERT OR IGNORE INTO evidence_records (proof_id, mode, due_at) VALUES (NEW.id, NEW.mode, COALESCE(NEW.sealed_at, NEW.updated_at));
END;

-- Proofs sealed before this migration are enrolled too.
INSERT OR IGNORE INTO evidence_records (proof_id, mode, due_at) SELECT id, mode, COALESCE(sealed_at, updated_at) FROM proofs WHERE status = 'sealed';
