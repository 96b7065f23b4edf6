import { and, eq } from "drizzle-orm";
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
