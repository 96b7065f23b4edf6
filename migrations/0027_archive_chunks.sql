-- Events and webhook deliveries older than 30 days move to immutable R2 objects (ADR 0067). One row per
-- archived chunk of an organization's events or deliveries in one mode: where its object is, the newest and
-- oldest (created_at, id) it holds, and the filter values present in it, so that a list reads only chunks
-- that hold a match. A chunk holds up to a few hundred rows: a few bytes of D1 per archived row.
-- Its object's key is made from its organization, mode, kind and oldest row (src/storage/objects/archive.ts);
-- the primary key is the order a list reads chunks in, so the table is its own index.
CREATE TABLE archive_chunks (
  organization_id TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  kind TEXT NOT NULL CHECK (kind IN ('events', 'deliveries')),
  newest_created_at TEXT NOT NULL,
  newest_id TEXT NOT NULL,
  oldest_created_at TEXT NOT NULL,
  oldest_id TEXT NOT NULL,
  -- JSON array of the distinct filter tuples of its rows: [type] for events, [endpoint_id, status, event] for deliveries.
  filters TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  PRIMARY KEY (organization_id, mode, kind, newest_created_at, newest_id)
) WITHOUT ROWID;

-- What the archive sweep takes, oldest first: dispatched events (all of them, for their 30 days), and
-- deliveries whose bodies the retention sweep emptied (until archived, a day at most).
CREATE INDEX events_dispatched_age ON events (created_at) WHERE dispatched_at IS NOT NULL;
CREATE INDEX webhook_deliveries_body_deleted ON webhook_deliveries (created_at) WHERE body_deleted_at IS NOT NULL;
