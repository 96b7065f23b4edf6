import { shardDatabase, shardOfId } from "../db/shards.ts";
import type { Env } from "../env.ts";
import type { SessionRow } from "../storage/capture-sessions.ts";
import type { ThemeRow } from "../storage/rows.ts";
import { findDefaultTheme, findTheme } from "../storage/capture-themes.ts";

/**
 * The theme a capture session shows (colour, logo): its template's, else the organization's default theme,
 * else none (the built-in look). The capture page and its logo route both ask here, so they never disagree.
 * Themes live in the organization's home shard, also for a session written in one of its write shards
 * (docs/adr/0070).
 */
export async function resolveSessionTheme(env: Env, session: SessionRow): Promise<ThemeRow | null> {
  const db = shardDatabase(env, shardOfId(session.organizationId));
  const themeId = session.templateSnapshot.theme_id;
  return (themeId ? await findTheme(db, session.organizationId, themeId) : null) ?? (await findDefaultTheme(db, session.organizationId));
}
