import type { Database } from "../db/client.ts";
import type { SessionRow } from "../storage/capture-sessions.ts";
import type { ThemeRow } from "../storage/rows.ts";
import { findDefaultTheme, findTheme } from "../storage/capture-themes.ts";

/**
 * The theme a capture session shows (colour, logo): its template's, else the organization's default theme,
 * else none (the built-in look). The capture page and its logo route both ask here, so they never disagree.
 */
export async function resolveSessionTheme(db: Database, session: SessionRow): Promise<ThemeRow | null> {
  const themeId = session.templateSnapshot.theme_id;
  return (themeId ? await findTheme(db, session.organizationId, themeId) : null) ?? (await findDefaultTheme(db, session.organizationId));
}
