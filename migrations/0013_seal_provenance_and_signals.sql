-- What each sealed file's seal says beyond its hashes (issue 12, docs/adr/0018): the earlier Content
-- Credentials the file came with (claim generator, digital source types, validation state, signer), the
-- width, height and duration the sealer decoded from the bytes (set beside what the device reported), and
-- the integrity signals, each with its stable code. JSON, NULL for files sealed before this migration.
-- ("Sealed before" looks the bytes up by hash through files_sha256 and files_signed_sha256 of 0002.)
ALTER TABLE files ADD COLUMN prior_credentials TEXT;
ALTER TABLE files ADD COLUMN decoded TEXT;
ALTER TABLE files ADD COLUMN signals TEXT;
