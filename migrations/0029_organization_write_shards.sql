-- The shards an organization writes its new capture sessions to once it has outgrown its home shard (docs/adr/0070).
-- Read in the organization's home shard only (the one its id names), with its API key; the row of the latest
-- `from_at` is where new sessions, and the proofs, files and events they make, are written. No row: home alone.
-- The table exists in every shard because migrations apply to all; only the home shard's rows are read.
CREATE TABLE organization_write_shards (
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  shard TEXT NOT NULL CHECK (length(shard) = 2),
  from_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, shard)
) WITHOUT ROWID;
