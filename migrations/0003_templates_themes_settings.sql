-- Capture templates (one mode each), capture themes (shared by both modes) and organization settings.
CREATE TABLE capture_themes (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  primary_color TEXT NOT NULL,
  locale TEXT NOT NULL,
  logo_key TEXT,
  logo_content_type TEXT,
  is_default INTEGER NOT NULL DEFAULT 0,
  archived_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX capture_themes_list ON capture_themes (organization_id, created_at DESC, id DESC);
-- At most one default theme per organization.
CREATE UNIQUE INDEX capture_themes_one_default ON capture_themes (organization_id) WHERE is_default = 1;

CREATE TABLE capture_templates (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  name TEXT NOT NULL,
  default_locale TEXT NOT NULL,
  welcome TEXT NOT NULL,
  steps TEXT NOT NULL,
  completion TEXT NOT NULL,
  theme_id TEXT REFERENCES capture_themes(id),
  stage TEXT,
  category TEXT,
  ask_location INTEGER NOT NULL DEFAULT 0,
  archived_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX capture_templates_list ON capture_templates (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX capture_templates_match ON capture_templates (organization_id, mode, stage, category) WHERE archived_at IS NULL;
CREATE INDEX capture_sessions_template ON capture_sessions (template_id) WHERE template_id IS NOT NULL;

-- Sites the capture page may send the person back to (JSON array of origins).
ALTER TABLE organizations ADD COLUMN allowed_return_origins TEXT NOT NULL DEFAULT '[]';
