import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { balanceAdjustments, organizations } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";

export interface Organization {
  id: string;
  name: string;
  balance: number;
}

export async function insertOrganization(db: Database, name: string, now: string): Promise<Organization> {
  const organization = { id: newId("org"), name, balance: 0 };
  await db.insert(organizations).values({ ...organization, createdAt: now, updatedAt: now });
  return organization;
}

export async function findOrganization(db: Database, id: string): Promise<Organization | null> {
  const row = await db
    .select({ id: organizations.id, name: organizations.name, balance: organizations.balance })
    .from(organizations)
    .where(eq(organizations.id, id))
    .get();
  return row ?? null;
}

/** Adds `amount` (may be negative) to the balance and records why, atomically. */
export async function adjustBalance(db: Database, organizationId: string, amount: number, reason: string, now: string): Promise<void> {
  await db.batch([
    db
      .update(organizations)
      .set({ balance: sql`${organizations.balance} + ${amount}`, updatedAt: now })
      .where(eq(organizations.id, organizationId)),
    db.insert(balanceAdjustments).values({ id: newId("bal"), organizationId, amount, reason, createdAt: now }),
  ]);
}
