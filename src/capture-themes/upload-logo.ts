import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { updateTheme } from "../storage/capture-themes.ts";
import { storeThemeLogo } from "../storage/objects/theme-logos.ts";
import { checkDeclaredLogoType, readLogoBody, sniffLogo } from "./logo.ts";
import { themeOrThrow } from "./find-theme.ts";

/**
 * Stores the request's bytes as the theme's logo, typed by what they are (a declared type that disagrees is
 * refused). An archived theme is refused without reading the upload.
 */
export async function uploadThemeLogo({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env" | "caller" | "now">; input: { id: string; request: Request } }) {
  const theme = await themeOrThrow({ ctx, input });
  if (theme.archivedAt !== null) {
    await input.request.body?.cancel();
    throw new ApiError("theme_archived");
  }
  const bytes = await readLogoBody(input.request);
  const contentType = sniffLogo(bytes);
  checkDeclaredLogoType(input.request.headers.get("Content-Type"), contentType);
  const key = await storeThemeLogo(ctx.env, theme.id, bytes, contentType);
  await updateTheme(ctx.db, theme.id, { logoKey: key, logoContentType: contentType, updatedAt: ctx.now.toISOString() });
  return themeOrThrow({ ctx, input: { id: theme.id } });
}
