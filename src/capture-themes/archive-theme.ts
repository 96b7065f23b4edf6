import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { archiveThemeUnlessUsed } from "../storage/capture-themes.ts";
import { themeOrThrow } from "./find-theme.ts";

/** Archives a theme no active template uses (409 theme_in_use otherwise); archiving twice is harmless. */
export async function archiveCaptureTheme({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: { id: string } }) {
  const theme = await themeOrThrow({ ctx, input });
  if (theme.archivedAt === null && !(await archiveThemeUnlessUsed(ctx.db, theme.id, ctx.now.toISOString()))) throw new ApiError("theme_in_use");
  return themeOrThrow({ ctx, input: { id: theme.id } });
}
