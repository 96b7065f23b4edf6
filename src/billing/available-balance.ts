import type { Database } from "../db/client.ts";
import { findOrganization } from "../storage/organizations.ts";

/**
 * Balance minus the proofs already promised (open live capture sessions and live proofs not yet sealed).
 * Promises are counted by `countPromisedProofs`, extended as capture sessions and proofs are stored.
 */
export async function balanceSummary(db: Database, organizationId: string): Promise<{ balance: number; available: number } | null> {
  const organization = await findOrganization(db, organizationId);
  if (organization === null) return null;
  const promised = await countPromisedProofs(db, organizationId);
  return { balance: organization.balance, available: organization.balance - promised };
}

export async function countPromisedProofs(_db: Database, _organizationId: string): Promise<number> {
  return 0;
}
