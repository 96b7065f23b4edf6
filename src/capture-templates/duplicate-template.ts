import type { Database } from "../db/client.ts";
import type { ApiCaller } from "../env.ts";
import { ApiError } from "../errors/api-error.ts";
import { newId } from "../lib/ids.ts";
import { breaksOneActiveMatch, findTemplate, insertTemplate } from "../storage/capture-templates.ts";
import { findTheme } from "../storage/capture-themes.ts";

/**
 * Copies a template (archived ones included) into an active, unused one: the way to change a frozen live
 * template. Its stage and category come along only while no other active template holds them; otherwise
 * the copy has neither (usable by its id, as the specification's duplicate-and-edit flow does), because
 * two active templates matching the same stage and category would leave sessions no single answer.
 */
export async function duplicateCaptureTemplate(db: Database, caller: ApiCaller, id: string, name: string, now: string) {
  const source = await findTemplate(db, caller.organizationId, caller.mode, id);
  if (source === null) throw new ApiError("capture_template_not_found");
  // An archived source may name a theme archived since; the copy is active, so it falls back to the default.
  const theme = source.themeId === null ? null : await findTheme(db, caller.organizationId, source.themeId);
  const themeId = theme !== null && theme.archivedAt === null ? theme.id : null;
  const { inUse: _inUse, ...fields } = source;
  const row = { ...fields, id: newId("tpl"), name, themeId, archivedAt: null, createdAt: now, updatedAt: now };
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
