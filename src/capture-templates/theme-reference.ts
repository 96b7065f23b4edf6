import type { Database } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { findTheme } from "../storage/capture-themes.ts";

/** A template may name a theme of its own organization that is not archived. */
export async function assertUsableTheme(db: Database, organizationId: string, themeId: string | null | undefined): Promise<void> {
  if (themeId === null || themeId === undefined) return;
  const theme = await findTheme(db, organizationId, themeId);
  if (theme === null || theme.archivedAt !== null) {
    throw new ApiError("validation_failed", { field: "/theme_id", detail: "No active capture theme with this id." });
  }
}
