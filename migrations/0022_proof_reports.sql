-- The PDF evidence reports (issue 25, docs/adr/0044): one row per report made, written once. `kind` is
-- `proof` (the proof's own report) or `pair` (the before/after pair's, stored with the after). A report
-- run writes its PDF under its own key, then inserts its row; the first insert wins (the primary key), and
-- a run that lost deletes its object. A sealed proof without its row is made again by the sweep.
CREATE TABLE proof_reports (
  proof_id TEXT NOT NULL REFERENCES proofs (id),
  kind TEXT NOT NULL CHECK (kind IN ('proof', 'pair')),
  object_key TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  language TEXT NOT NULL,
  made_at TEXT NOT NULL,
  PRIMARY KEY (proof_id, kind)
);
