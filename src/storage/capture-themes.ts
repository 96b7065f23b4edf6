import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureThemes } from "../db/schema/index.ts";
import { keysetPage } from "../lib/pagination.ts";

export type ThemeRow = typeof captureThemes.$inferSelect;

export async function findTheme(db: Database, organizationId: string, id: string): Promise<ThemeRow | null> {
  const row = await db
    .select()
    .from(captureThemes)
    .where(and(eq(captureThemes.id, id), eq(captureThemes.organizationId, organizationId)))
    .get();
  return row ?? null;
}

export async function findDefaultTheme(db: Database, organizationId: string): Promise<ThemeRow | null> {
  const row = await db
    .select()
    .from(captureThemes)
    .where(and(eq(captureThemes.organizationId, organizationId), eq(captureThemes.isDefault, true), isNull(captureThemes.archivedAt)))
    .get();
  return row ?? null;
}

/** Inserts a theme; the organization's first theme becomes its default (the partial unique index keeps one). */
export async function insertTheme(db: Database, row: Omit<typeof captureThemes.$inferInsert, "isDefault">): Promise<ThemeRow> {
  const hasDefault = (await findDefaultTheme(db, row.organizationId)) !== null;
  const [inserted] = await db
    .insert(captureThemes)
    .values({ ...row, isDefault: !hasDefault })
    .returning();
  return inserted!;
}

export async function listThemes(db: Database, organizationId: string, limit: number, cursor: string | undefined) {
  const page = keysetPage({ createdAt: captureThemes.createdAt, id: captureThemes.id }, cursor);
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

/** Makes one theme the default, atomically un-defaulting the previous one. */
export async function makeDefaultTheme(db: Database, organizationId: string, id: string, now: string): Promise<void> {
  await db.batch([
    db
      .update(captureThemes)
      .set({ isDefault: false, updatedAt: now })
      .where(and(eq(captureThemes.organizationId, organizationId), eq(captureThemes.isDefault, true))),
    db.update(captureThemes).set({ isDefault: true, updatedAt: now }).where(eq(captureThemes.id, id)),
  ]);
}
