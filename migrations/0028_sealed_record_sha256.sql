-- The SHA-256 of the sealed record a proof's files are read from (docs/adr/0065): the record is an object in R2 that
-- nothing signs, so what it alone holds (capture times, sizes, capture context, signals) is bound by this hash in
-- D1, written by the batch that seals the proof. NULL for proofs sealed before: their record is read as before.
ALTER TABLE proofs ADD COLUMN sealed_record_sha256 TEXT;
