-- The sealing run whose artifacts a sealed proof publishes. Each run writes its signed files and
-- artifacts under its own prefix, and only the run that seals the proof is recorded here, so two runs
-- of one proof (a queue redelivery, a sweep re-enqueueing a slow proof) can never mix their outputs.
-- NULL for proofs sealed before runs existed: their artifacts sit directly under proofs/{id}/.
ALTER TABLE proofs ADD COLUMN sealing_run TEXT;
