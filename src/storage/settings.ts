import { eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { organizations } from "../db/schema/index.ts";

export async function getAllowedReturnOrigins(db: Database, organizationId: string): Promise<string[]> {
  const row = await db.select({ origins: organizations.allowedReturnOrigins }).from(organizations).where(eq(organizations.id, organizationId)).get();
  return row?.origins ?? [];
}

export async function setAllowedReturnOrigins(db: Database, organizationId: string, origins: string[], now: string): Promise<void> {
  await db.update(organizations).set({ allowedReturnOrigins: origins, updatedAt: now }).where(eq(organizations.id, organizationId));
}
