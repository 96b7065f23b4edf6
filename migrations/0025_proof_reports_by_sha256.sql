-- A sealed report found by its SHA-256 (issue 25, forger finding R3, docs/adr/0056): POST /v1/public/verify
-- answers "the sealed report of proof X" for a report's bytes or hash, as it does for a signed file.
CREATE INDEX proof_reports_sha256 ON proof_reports (sha256);
