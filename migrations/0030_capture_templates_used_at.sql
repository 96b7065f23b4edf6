-- When a session first used this template from a shard other than the template's own (docs/adr/0070). Templates
-- stay in the organization's home shard while its new sessions are written in a write shard, so "a session uses
-- this template" can no longer be read off the home shard's capture_sessions alone: `in_use` and the live
-- freeze of PATCH read `used_at IS NOT NULL OR EXISTS (a session here)`. The creation sets it home, before it
-- inserts the session elsewhere (set once, never cleared): a creation that fails after it merely freezes the
-- template a little early, which is harmless, whereas setting it after the insert would leave a window in
-- which a live template could change under a session. NULL for templates only ever used home.
ALTER TABLE capture_templates ADD COLUMN used_at TEXT;
