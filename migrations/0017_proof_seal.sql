-- The seal over a whole proof (issue 24, docs/adr/0027): manifest.p7s, a CMS signature of manifest.json by the
-- service's sealing certificate. Each sealed proof names that certificate (NULL: sealed before the seal existed,
-- manifest version 1), and every sealing certificate a proof was sealed with is listed once, with its validity,
-- so that GET /v1/public/trust-anchors shows a rotation.
ALTER TABLE proofs ADD COLUMN seal_certificate_sha256 TEXT;
ALTER TABLE proofs ADD COLUMN seal_certificate_subject TEXT;
CREATE TABLE seal_certificates (
  sha256 TEXT PRIMARY KEY,
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  subject TEXT NOT NULL,
  issuer TEXT NOT NULL,
  serial TEXT NOT NULL,
  not_before TEXT NOT NULL,
  not_after TEXT NOT NULL,
  pem TEXT NOT NULL,
  first_sealed_at TEXT NOT NULL,
  last_sealed_at TEXT NOT NULL
);
