import type { DomainContext } from "../domain/context.ts";
import { newId } from "../lib/ids.ts";
import { breaksOneActiveMatch, insertTemplate } from "../storage/capture-templates.ts";
import { templateOrThrow } from "./find-template.ts";
import { findTheme } from "../storage/capture-themes.ts";

/**
 * Copies a template (archived ones included) into an active, unused one: the way to change a frozen live
 * template. Its stage and category come along only while no other active template holds them; otherwise
 * the copy has neither (usable by its id, as the specification's duplicate-and-edit flow does), because
 * two active templates matching the same stage and category would leave sessions no single answer.
 */
export async function duplicateCaptureTemplate({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: { id: string; name: string } }) {
  const { db, caller } = ctx;
  const { name } = input;
  const now = ctx.now.toISOString();
  const source = await templateOrThrow({ ctx, input });
  // An archived source may name a theme archived since; the copy is active, so it falls back to the default.
  const theme = source.themeId === null ? null : await findTheme(db, caller.organizationId, source.themeId);
  const themeId = theme !== null && theme.archivedAt === null ? theme.id : null;
  const { inUse: _inUse, ...fields } = source;
  const row = { ...fields, id: newId("tpl"), name, themeId, archivedAt: null, usedAt: null, createdAt: now, updatedAt: now };
  try {
    await insertTemplate(db, row);
    return { ...row, inUse: false };
  } catch (error) {
    if (!breaksOneActiveMatch(error)) throw error;
  }
  const unmatched = { ...row, stage: null, category: null };
  await insertTemplate(db, unmatched);
  return { ...unmatched, inUse: false };
}
