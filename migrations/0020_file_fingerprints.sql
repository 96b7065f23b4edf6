-- Perceptual fingerprints of sealed photos (issue 27, docs/adr/0041): one row per sealed photo the sealer could
-- decode, written in the batch that seals its proof. A new photo is compared with the rows of the same
-- organization and mode: each of the four 16-bit bands of its pHash (band0 the most significant) is looked up
-- with its one-bit neighbours through its own index, and the Hamming distances are computed in the Worker.
CREATE TABLE file_fingerprints (
  -- the sealed file (files.id); written with it in the sealing batch
  file_id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  proof_id TEXT NOT NULL REFERENCES proofs (id),
  step_id TEXT NOT NULL,
  sealed_at TEXT NOT NULL,
  -- 64 bits each, 16 lower-case hex digits, bit 63 first
  phash TEXT NOT NULL,
  dhash TEXT NOT NULL,
  band0 INTEGER NOT NULL,
  band1 INTEGER NOT NULL,
  band2 INTEGER NOT NULL,
  band3 INTEGER NOT NULL
);
CREATE INDEX file_fingerprints_band0 ON file_fingerprints (organization_id, mode, band0);
CREATE INDEX file_fingerprints_band1 ON file_fingerprints (organization_id, mode, band1);
CREATE INDEX file_fingerprints_band2 ON file_fingerprints (organization_id, mode, band2);
CREATE INDEX file_fingerprints_band3 ON file_fingerprints (organization_id, mode, band3);
