-- The re-hash sweep walks sealed proofs from one cursor per shard instead of a row per object (docs/adr/0066,
-- superseding the storage part of 0037). A sealed proof leaves no row of its own here: `rehash_seq` orders the
-- sealed proofs of this database in the order their sealing committed (assigned by the trigger below in the
-- statement that seals), so a proof sealed after the cursor passed its place comes after the cursor, never before.
ALTER TABLE proofs ADD COLUMN rehash_seq INTEGER;
CREATE UNIQUE INDEX proofs_rehash_seq ON proofs (rehash_seq) WHERE rehash_seq IS NOT NULL;

CREATE TRIGGER proofs_sealed_rehash_seq AFTER UPDATE OF status ON proofs
WHEN NEW.status = 'sealed' AND OLD.status <> 'sealed'
BEGIN
  UPDATE proofs SET rehash_seq = COALESCE((SELECT rehash_seq FROM proofs WHERE rehash_seq IS NOT NULL ORDER BY rehash_seq DESC LIMIT 1), 0) + 1
  WHERE id = NEW.id;
END;

-- Proofs sealed before this migration, in the order they were sealed.
UPDATE proofs SET rehash_seq = ordered.n
FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY COALESCE(sealed_at, updated_at), id) AS n FROM proofs WHERE status = 'sealed') AS ordered
WHERE proofs.id = ordered.id;

-- The one cursor of this database. A round re-hashes every sealed proof with rehash_seq > 0 in order; `position`
-- is the last proof whose objects it re-hashed all. A proof at or before `position` was re-hashed in this round (at or after
-- round_started_at); after it, in the previous round when at or before previous_round_end (at or after
-- previous_round_started_at); else never.
CREATE TABLE rehash_cursor (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  -- NULL: no round started yet
  round_started_at TEXT,
  position INTEGER NOT NULL DEFAULT 0,
  -- objects of the next proof (after position) already re-hashed this round: a proof with more objects than a run
  -- re-hashes is done over several runs, and counts as re-hashed in this round only once all are
  object_offset INTEGER NOT NULL DEFAULT 0,
  previous_round_started_at TEXT,
  previous_round_completed_at TEXT,
  -- the last rehash_seq the previous round re-hashed (0: no round completed)
  previous_round_end INTEGER NOT NULL DEFAULT 0,
  -- the first rehash_seq sealed with its run's artifact-hashes.json: from it on, that object missing is a finding
  artifact_hashes_from INTEGER NOT NULL
);
INSERT INTO rehash_cursor (id, artifact_hashes_from) SELECT 1, COALESCE(MAX(rehash_seq), 0) + 1 FROM proofs;

-- Proofs are no longer queued: the cursor finds them. The queue's table stays, emptied, until the capacity script
-- stops measuring it.
DROP TRIGGER proofs_sealed_enrol_object_checks;
DELETE FROM sealed_object_enrolments;

-- What a verifier needs is kept: every mismatch (altered or missing, matched = 0), and the expected hashes of
-- proof.tsr, chain.pem and manifest.p7s of proofs sealed before their sealed record held them (only these rows
-- hold them). The rows of signed files and manifests that matched or were not re-hashed yet go: their expected
-- hashes are the proof's own (its files' signed_sha256, its manifest_sha256).
DELETE FROM sealed_object_checks WHERE matched IS NOT 0 AND (file_id IS NOT NULL OR entry = 'manifest.json');
-- Objects are no longer taken by when they were last re-hashed.
DROP INDEX sealed_object_checks_due;
