import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { findTheme } from "../storage/capture-themes.ts";
import type { ThemeRow } from "../storage/rows.ts";

/** A theme of the caller's organization (themes are shared by both modes), archived ones included. */
export async function themeOrThrow({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller">; input: { id: string } }): Promise<ThemeRow> {
  const theme = await findTheme(ctx.db, ctx.caller.organizationId, input.id);
  if (theme === null) throw new ApiError("capture_theme_not_found");
  return theme;
}
