-- Crop-tolerant matching of perceptual fingerprints (issue 27, docs/adr/0052, superseding 0041's one row a photo).
-- Besides the whole picture (variant 0), a sealed photo has a row for each of five crops of it that keep 95 % of
-- its width and height, against one corner (variants 1 to 4) or centred (5), so that a copy cropped by 5 % from a
-- corner, whose fingerprint is up to 26 bits from the whole picture's, is found through the same band indexes
-- within a few bits of one of them. Rows written before have variant 0 only.
CREATE TABLE file_fingerprints_by_variant (
  file_id TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  proof_id TEXT NOT NULL REFERENCES proofs (id),
  step_id TEXT NOT NULL,
  sealed_at TEXT NOT NULL,
  phash TEXT NOT NULL,
  dhash TEXT NOT NULL,
  band0 INTEGER NOT NULL,
  band1 INTEGER NOT NULL,
  band2 INTEGER NOT NULL,
  band3 INTEGER NOT NULL,
  -- 0: the whole picture; 1 to 5: 95 % of it kept against the top-left, top-right, bottom-left, bottom-right corner, centred
  variant INTEGER NOT NULL DEFAULT 0 CHECK (variant BETWEEN 0 AND 5),
  PRIMARY KEY (file_id, variant)
);
INSERT INTO file_fingerprints_by_variant (file_id, organization_id, mode, proof_id, step_id, sealed_at, phash, dhash, band0, band1, band2, band3, variant)
SELECT file_id, organization_id, mode, proof_id, step_id, sealed_at, phash, dhash, band0, band1, band2, band3, 0 FROM file_fingerprints;
DROP TABLE file_fingerprints;
ALTER TABLE file_fingerprints_by_variant RENAME TO file_fingerprints;
CREATE INDEX file_fingerprints_band0 ON file_fingerprints (organization_id, mode, band0);
CREATE INDEX file_fingerprints_band1 ON file_fingerprints (organization_id, mode, band1);
CREATE INDEX file_fingerprints_band2 ON file_fingerprints (organization_id, mode, band2);
CREATE INDEX file_fingerprints_band3 ON file_fingerprints (organization_id, mode, band3);
