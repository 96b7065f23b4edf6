-- A sealed proof's full record in R2 (issue 31 point 2, docs/adr/0055): from this migration on, sealing writes
-- each file's facts and capture context (capture_context, decoded, signals, prior_credentials) once to the
-- sealing run's immutable record.json, before the proof says sealed, and leaves those columns NULL in D1.
-- 1: read them from the record of `sealing_run`; 0: a proof sealed before, whose files still hold them in D1.
ALTER TABLE proofs ADD COLUMN sealed_record INTEGER NOT NULL DEFAULT 0;
