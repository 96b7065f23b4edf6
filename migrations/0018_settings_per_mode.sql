-- Settings per mode (issue 28, docs/adr/0029): a test key's PATCH /v1/settings must never change what live
-- captures use. Each mode of an organization gets its own row; a missing row is the empty default.
-- The one shared list becomes both modes' list, so that nothing working before stops working: every
-- return_url accepted yesterday, with either key, is accepted today, and from now on each mode edits its own.
-- organizations.allowed_return_origins is left in place, no longer read, so that the Worker before this
-- change keeps answering between this migration and the deployment; a later migration drops it.
CREATE TABLE mode_settings (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  allowed_return_origins TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, mode)
);
INSERT INTO mode_settings (organization_id, mode, allowed_return_origins, created_at, updated_at)
  SELECT organizations.id, modes.mode, organizations.allowed_return_origins, organizations.updated_at, organizations.updated_at
  FROM organizations CROSS JOIN (SELECT 'test' AS mode UNION ALL SELECT 'live') AS modes
  WHERE organizations.allowed_return_origins <> '[]';
