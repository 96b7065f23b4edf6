import { and, count, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions, proofs } from "../db/schema/index.ts";
import { findOrganization } from "../storage/organizations.ts";

/** Balance minus the proofs already promised: open live capture sessions and live proofs not yet sealed. */
export async function balanceSummary(db: Database, organizationId: string): Promise<{ balance: number; available: number } | null> {
  const organization = await findOrganization(db, organizationId);
  if (organization === null) return null;
  return { balance: organization.balance, available: organization.balance - (await countPromisedProofs(db, organizationId)) };
}

export async function countPromisedProofs(db: Database, organizationId: string): Promise<number> {
  const [sessions, pending] = await db.batch([
    db
      .select({ n: count() })
      .from(captureSessions)
      .where(and(eq(captureSessions.organizationId, organizationId), eq(captureSessions.holdsReservation, 1))),
    db
      .select({ n: count() })
      .from(proofs)
      .where(and(eq(proofs.organizationId, organizationId), eq(proofs.holdsReservation, 1))),
  ]);
  return (sessions[0]?.n ?? 0) + (pending[0]?.n ?? 0);
}
