import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { makeDefaultTheme, updateTheme } from "../storage/capture-themes.ts";
import { themeOrThrow } from "./find-theme.ts";

export interface ThemeChanges {
  name?: string;
  primary_color?: string;
  locale?: string;
  is_default?: true;
}

/** Changes an active theme (an archived one is refused: 409 theme_archived) and answers it as stored. */
export async function updateCaptureTheme({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: { id: string; changes: ThemeChanges } }) {
  const { db } = ctx;
  const theme = await themeOrThrow({ ctx, input });
  if (theme.archivedAt !== null) throw new ApiError("theme_archived");
  const { changes } = input;
  const now = ctx.now.toISOString();
  await updateTheme(db, theme.id, {
    name: changes.name ?? theme.name,
    primaryColor: changes.primary_color?.toLowerCase() ?? theme.primaryColor,
    locale: changes.locale ?? theme.locale,
    updatedAt: now,
  });
  if (changes.is_default) await makeDefaultTheme(db, theme.organizationId, theme.id, now);
  return themeOrThrow({ ctx, input: { id: theme.id } });
}
