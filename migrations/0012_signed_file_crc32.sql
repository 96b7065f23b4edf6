-- The CRC-32 of each signed file, computed by the sealer while it holds the bytes, so that the Worker
-- streams verification packages of any size without computing it (ZIP needs it for every entry).
-- NULL for files sealed before it was recorded: the package route computes theirs on the way.
ALTER TABLE files ADD COLUMN signed_crc32 INTEGER;
