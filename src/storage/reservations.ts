import { and, count, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { captureSessions, proofs } from "../db/schema/index.ts";

/** Proofs an organisation's balance already promised: open live capture sessions and live proofs not yet sealed. */
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
