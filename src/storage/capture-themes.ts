import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureThemes } from "../db/schema/index.ts";
import { keysetPage } from "./keyset-page.ts";
import { type ObjectStore, openObject } from "./objects/bucket.ts";
import type { Keyset } from "../lib/pagination.ts";

import type { ThemeRow } from "./rows.ts";

export async function findTheme(db: Database, organizationId: string, id: string): Promise<ThemeRow | null> {
  const row = await db
    .select()
    .from(captureThemes)
    .where(and(eq(captureThemes.id, id), eq(captureThemes.organizationId, organizationId)))
    .get();
  return row ?? null;
}

/**
 * The organization's default theme (never an archived one), or null when it has none. Besides the row it
 * carries the API spelling `primary_color` and `has_logo`, so callers that only need the look of the page
 * can ignore the storage columns.
 */
export async function findDefaultTheme(db: Database, organizationId: string): Promise<(ThemeRow & { primary_color: string; has_logo: boolean }) | null> {
  const row = await db
    .select()
    .from(captureThemes)
    .where(and(eq(captureThemes.organizationId, organizationId), eq(captureThemes.isDefault, true), isNull(captureThemes.archivedAt)))
    .get();
  return row ? { ...row, primary_color: row.primaryColor, has_logo: row.logoKey !== null } : null;
}

/**
 * Inserts a theme; it becomes the default when the organization has no default theme yet. Decided inside
 * the one INSERT so that two concurrent first creations cannot both claim it (the partial unique index
 * would otherwise turn the loser into a 500).
 */
export async function insertTheme(db: Database, row: Omit<typeof captureThemes.$inferInsert, "isDefault">): Promise<ThemeRow> {
  const noDefaultYet = sql<boolean>`NOT EXISTS (SELECT 1 FROM capture_themes WHERE organization_id = ${row.organizationId} AND is_default = 1)`;
  const [inserted] = await db
    .insert(captureThemes)
    .values({ ...row, isDefault: noDefaultYet })
    .returning();
  return inserted!;
}

export async function listThemes(db: Database, organizationId: string, limit: number, after: Keyset | undefined) {
  const page = keysetPage({ createdAt: captureThemes.createdAt, id: captureThemes.id }, after);
  return db
    .select()
    .from(captureThemes)
    .where(and(eq(captureThemes.organizationId, organizationId), page.where))
    .orderBy(...page.orderBy)
    .limit(limit + 1)
    .all();
}

export async function updateTheme(db: Database, id: string, changes: Partial<typeof captureThemes.$inferInsert>): Promise<void> {
  await db.update(captureThemes).set(changes).where(eq(captureThemes.id, id));
}

/**
 * Archives a theme unless an active template names it, in one conditional UPDATE (a template created in
 * between cannot be left pointing at an archived theme). An archived theme is no longer the default.
 * Returns false when a template uses it.
 */
export async function archiveThemeUnlessUsed(db: Database, id: string, now: string): Promise<boolean> {
  const result = await db
    .update(captureThemes)
    .set({ archivedAt: sql`COALESCE(${captureThemes.archivedAt}, ${now})`, isDefault: false, updatedAt: now })
    .where(
      and(
        eq(captureThemes.id, id),
        sql`NOT EXISTS (SELECT 1 FROM capture_templates WHERE capture_templates.theme_id = ${id} AND capture_templates.archived_at IS NULL)`,
      ),
    )
    .run();
  return result.meta.changes > 0;
}

/** Makes one (active) theme the default, atomically un-defaulting the previous one. */
export async function makeDefaultTheme(db: Database, organizationId: string, id: string, now: string): Promise<void> {
  await db.batch([
    db
      .update(captureThemes)
      .set({ isDefault: false, updatedAt: now })
      .where(and(eq(captureThemes.organizationId, organizationId), eq(captureThemes.isDefault, true))),
    db
      .update(captureThemes)
      .set({ isDefault: true, updatedAt: now })
      .where(and(eq(captureThemes.id, id), isNull(captureThemes.archivedAt))),
  ]);
}

/**
 * A theme's logo for the capture page: the R2 object and the content type sniffed at upload, or null when
 * the theme has no logo. The caller decides who may read it (the capture link's theme) and must serve it
 * with `X-Content-Type-Options: nosniff` and a sandboxing CSP, since an SVG is a document.
 */
export async function readThemeLogo(
  db: Database,
  store: ObjectStore,
  themeId: string,
): Promise<{ body: ReadableStream; contentType: string; size: number } | null> {
  const row = await db
    .select({ key: captureThemes.logoKey, contentType: captureThemes.logoContentType })
    .from(captureThemes)
    .where(eq(captureThemes.id, themeId))
    .get();
  if (!row?.key) return null;
  const object = await openObject(store, row.key);
  if (object === null) return null;
  return { body: object.body, contentType: row.contentType ?? object.contentType ?? "application/octet-stream", size: object.size };
}
