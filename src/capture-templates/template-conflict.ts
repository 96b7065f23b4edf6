import type { Database } from "../db/client.ts";
import type { Mode } from "../auth/mode.ts";
import { ApiError } from "../errors/api-error.ts";
import { breaksOneActiveMatch, findActiveTemplateWithMatch } from "../storage/capture-templates.ts";

interface Match {
  organizationId: string;
  mode: Mode;
  stage: string | null;
  category: string | null;
}

/**
 * Runs a template write that may make it active with `stage` and `category`. The database's unique index
 * decides (migration 0008), so two concurrent writes cannot both succeed; the loser gets `409
 * template_conflict` naming the template that holds the pair.
 */
export async function refusingTemplateConflict<T>(db: Database, match: Match, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!breaksOneActiveMatch(error)) throw error;
    const holder = await findActiveTemplateWithMatch(db, match.organizationId, match.mode, match.stage, match.category);
    throw new ApiError("template_conflict", {
      field: match.stage !== null ? "/stage" : "/category",
      detail: `The active template ${holder?.id ?? "of this mode"} already has stage ${match.stage ?? "null"} and category ${match.category ?? "null"}: archive it, or choose another stage or category.`,
    });
  }
}
