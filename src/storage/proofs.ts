import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { proofs } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";

export type ProofRecord = typeof proofs.$inferSelect;

/** A proof of this organization and mode; another organization's or mode's is as absent as a missing one. */
export async function findProof(db: Database, organizationId: string, mode: Mode, id: string): Promise<ProofRecord | null> {
  const row = await db
    .select()
    .from(proofs)
    .where(and(eq(proofs.id, id), eq(proofs.organizationId, organizationId), eq(proofs.mode, mode)))
    .get();
  return row ?? null;
}
