import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { proofs } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";

import type { ProofRow } from "./rows.ts";

/** A proof of this organization and mode; another organization's or mode's is as absent as a missing one. */
export async function findProof(db: Database, organizationId: string, mode: Mode, id: string): Promise<ProofRow | null> {
  const row = await db
    .select()
    .from(proofs)
    .where(and(eq(proofs.id, id), eq(proofs.organizationId, organizationId), eq(proofs.mode, mode)))
    .get();
  return row ?? null;
}

/**
 * Binds a proof's record of facts (`sealed_record` 1, sealed before migration 0028) by the SHA-256 of its bytes, only
 * while D1 holds none: a bound hash is never replaced, whatever the record says later (docs/adr/0069). Returns the
 * SHA-256 D1 holds afterwards: this one, or the one a run at the same time bound first.
 */
export async function bindSealedRecord(db: Database, proofId: string, sha256: string): Promise<string | null> {
  const [, held] = await db.batch([
    db
      .update(proofs)
      .set({ sealedRecordSha256: sha256 })
      .where(and(eq(proofs.id, proofId), eq(proofs.sealedRecord, 1), isNull(proofs.sealedRecordSha256))),
    db.select({ sha256: proofs.sealedRecordSha256 }).from(proofs).where(eq(proofs.id, proofId)),
  ]);
  return held[0]?.sha256 ?? null;
}
