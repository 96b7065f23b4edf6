import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { modeSettings } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";

/** The allowed return origins of one mode of an organization (docs/adr/0029); none set: an empty list. */
export async function getAllowedReturnOrigins(db: Database, organizationId: string, mode: Mode): Promise<string[]> {
  const row = await db
    .select({ origins: modeSettings.allowedReturnOrigins })
    .from(modeSettings)
    .where(and(eq(modeSettings.organizationId, organizationId), eq(modeSettings.mode, mode)))
    .get();
  return row?.origins ?? [];
}

/** Replaces one mode's allowed return origins; the other mode's are another row, never touched. */
export async function setAllowedReturnOrigins(db: Database, organizationId: string, mode: Mode, origins: string[], now: string): Promise<void> {
  await db
    .insert(modeSettings)
    .values({ organizationId, mode, allowedReturnOrigins: origins, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [modeSettings.organizationId, modeSettings.mode], set: { allowedReturnOrigins: origins, updatedAt: now } });
}
