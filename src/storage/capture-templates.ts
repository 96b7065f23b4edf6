import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureTemplates } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { keysetPage } from "./keyset-page.ts";
import type { Keyset } from "../lib/pagination.ts";

import type { TemplateRow } from "./rows.ts";
export type NewTemplateRow = typeof captureTemplates.$inferInsert;

/**
 * A session of the home shard was created from it, or `used_at` records one written in another shard
 * (migration 0030, docs/adr/0070): templates stay home, so that shard's sessions alone no longer tell.
 * Spelled out: drizzle leaves columns unqualified in single-table queries, which would bind the inner one.
 */
const inUse = sql<number>`(capture_templates.used_at IS NOT NULL OR EXISTS (SELECT 1 FROM capture_sessions WHERE capture_sessions.template_id = capture_templates.id))`;

export async function insertTemplate(db: Database, row: NewTemplateRow): Promise<void> {
  await db.insert(captureTemplates).values(row);
}

/** A template of this organization and mode (archived included), with whether a session used it. */
export async function findTemplate(db: Database, organizationId: string, mode: Mode, id: string) {
  const row = await db
    .select({ template: captureTemplates, inUse })
    .from(captureTemplates)
    .where(and(eq(captureTemplates.id, id), eq(captureTemplates.organizationId, organizationId), eq(captureTemplates.mode, mode)))
    .get();
  return row ? { ...row.template, inUse: Boolean(row.inUse) } : null;
}

export async function listTemplates(db: Database, organizationId: string, mode: Mode, limit: number, after: Keyset | undefined) {
  const page = keysetPage({ createdAt: captureTemplates.createdAt, id: captureTemplates.id }, after);
  const rows = await db
    .select({ template: captureTemplates, inUse })
    .from(captureTemplates)
    .where(and(eq(captureTemplates.organizationId, organizationId), eq(captureTemplates.mode, mode), page.where))
    .orderBy(...page.orderBy)
    .limit(limit + 1)
    .all();
  return rows.map((row) => ({ ...row.template, inUse: Boolean(row.inUse) }));
}

/**
 * Applies an edit only while the template may still change: not archived, and, in live mode, no session
 * created from it. The condition sits in the UPDATE itself, so a session created between the caller's
 * read and this write cannot slip an edit past the freeze; likewise a new `theme_id` must still name an
 * active theme at the moment of writing (its archiving checks for templates in one UPDATE too). Returns
 * whether the row changed.
 */
export async function updateEditableTemplate(db: Database, id: string, changes: Partial<NewTemplateRow>): Promise<boolean> {
  const result = await db
    .update(captureTemplates)
    .set(changes)
    .where(
      and(
        eq(captureTemplates.id, id),
        isNull(captureTemplates.archivedAt),
        sql`NOT (${captureTemplates.mode} = 'live' AND ${inUse})`,
        typeof changes.themeId === "string" ? themeIsActive(changes.themeId) : undefined,
      ),
    )
    .run();
  return result.meta.changes > 0;
}

/**
 * Records in the home shard that a session about to be written in another shard uses this template
 * (migration 0030). Called before that insert, so no edit can land between the session and the freeze; an
 * insert that then fails leaves the template frozen a little early, which is harmless. Written once.
 */
export async function markTemplateUsed(db: Database, organizationId: string, id: string, at: string): Promise<void> {
  await db
    .update(captureTemplates)
    .set({ usedAt: at })
    .where(and(eq(captureTemplates.id, id), eq(captureTemplates.organizationId, organizationId), isNull(captureTemplates.usedAt)))
    .run();
}

const themeIsActive = (themeId: string) =>
  sql`EXISTS (SELECT 1 FROM capture_themes WHERE capture_themes.id = ${themeId} AND capture_themes.archived_at IS NULL)`;

/**
 * Inserts a template whose theme, if any, is still active when the row is written: the INSERT selects its
 * values only while that holds. Returns false when the theme was archived meanwhile.
 */
export async function insertTemplateWithActiveTheme(db: Database, row: NewTemplateRow): Promise<boolean> {
  if (row.themeId === null || row.themeId === undefined) {
    await insertTemplate(db, row);
    return true;
  }
  const columns = Object.keys(row) as (keyof NewTemplateRow)[];
  const names = columns.map((key) => sql.identifier(captureTemplates[key].name));
  const values = columns.map((key) => {
    const value = row[key];
    return value !== null && typeof value === "object" ? JSON.stringify(value) : typeof value === "boolean" ? Number(value) : value;
  });
  const result = await db.run(
    sql`INSERT INTO capture_templates (${sql.join(names, sql`, `)}) SELECT ${sql.join(
      values.map((value) => sql`${value}`),
      sql`, `,
    )} WHERE ${themeIsActive(row.themeId)}`,
  );
  return result.meta.changes > 0;
}

export async function updateTemplate(db: Database, id: string, changes: Partial<NewTemplateRow>): Promise<void> {
  await db.update(captureTemplates).set(changes).where(eq(captureTemplates.id, id));
}

/** The organization's templates in this mode that are not archived. */
const activeTemplatesOf = (organizationId: string, mode: Mode) =>
  and(eq(captureTemplates.organizationId, organizationId), eq(captureTemplates.mode, mode), isNull(captureTemplates.archivedAt));

/**
 * The active template for `stage` and `category`, most specific first: both match, then stage only,
 * then category only. A template with neither is never chosen here (only when named).
 */
export async function findMatchingTemplate(db: Database, organizationId: string, mode: Mode, stage: string | null, category: string | null) {
  if (stage === null && category === null) return null;
  const candidates = await db
    .select()
    .from(captureTemplates)
    .where(and(activeTemplatesOf(organizationId, mode), sql`(${captureTemplates.stage} IS NOT NULL OR ${captureTemplates.category} IS NOT NULL)`))
    .orderBy(sql`${captureTemplates.createdAt} DESC`)
    .all();
  const score = (row: TemplateRow) => {
    const stageMatches = row.stage === null || row.stage === stage;
    const categoryMatches = row.category === null || row.category === category;
    if (!stageMatches || !categoryMatches) return -1;
    return (row.stage !== null ? 2 : 0) + (row.category !== null ? 1 : 0);
  };
  let best: TemplateRow | null = null;
  for (const row of candidates) if (score(row) > (best ? score(best) : 0)) best = row;
  return best;
}

/** The unique index of migration 0008: at most one active template per (organization, mode, stage, category). */
const ONE_ACTIVE_MATCH_INDEX = "capture_templates_one_active_match";

/** Whether a failed write would have made a second active template with the same stage and category. */
export function breaksOneActiveMatch(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.message.includes(ONE_ACTIVE_MATCH_INDEX)) return true;
  }
  return false;
}

/** The active template holding exactly this stage and category in this organization and mode, if any. */
export async function findActiveTemplateWithMatch(db: Database, organizationId: string, mode: Mode, stage: string | null, category: string | null) {
  const row = await db
    .select({ id: captureTemplates.id })
    .from(captureTemplates)
    .where(
      and(
        activeTemplatesOf(organizationId, mode),
        stage === null ? isNull(captureTemplates.stage) : eq(captureTemplates.stage, stage),
        category === null ? isNull(captureTemplates.category) : eq(captureTemplates.category, category),
      ),
    )
    .get();
  return row ?? null;
}
