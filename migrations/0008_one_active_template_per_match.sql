-- At most one active template per (organization, mode, stage, category), so that "the active template
-- matching stage and category" has a single answer. Templates with neither stage nor category are used
-- only when named and never conflict. SQLite treats NULLs as distinct in a unique index, hence IFNULL
-- ('' is no valid stage or category: both match ^[a-z0-9_.-]{1,64}$).
--
-- Existing duplicates: sessions have always picked the newest of them, so the older ones were never
-- matched; they lose their stage and category (and stay usable by id), which changes no session's choice.
UPDATE capture_templates
SET stage = NULL, category = NULL
WHERE archived_at IS NULL
  AND (stage IS NOT NULL OR category IS NOT NULL)
  AND EXISTS (
    SELECT 1 FROM capture_templates AS newer
    WHERE newer.organization_id = capture_templates.organization_id
      AND newer.mode = capture_templates.mode
      AND newer.archived_at IS NULL
      AND newer.stage IS capture_templates.stage
      AND newer.category IS capture_templates.category
      AND (newer.created_at > capture_templates.created_at
        OR (newer.created_at = capture_templates.created_at AND newer.id > capture_templates.id))
  );

CREATE UNIQUE INDEX capture_templates_one_active_match
  ON capture_templates (organization_id, mode, IFNULL(stage, ''), IFNULL(category, ''))
  WHERE archived_at IS NULL AND (stage IS NOT NULL OR category IS NOT NULL);
