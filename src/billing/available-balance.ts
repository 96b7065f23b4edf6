import type { Database } from "../db/client.ts";
import { findOrganization } from "../storage/organizations.ts";
import { countPromisedProofs } from "../storage/reservations.ts";

/** Balance minus the proofs already promised: open live capture sessions and live proofs not yet sealed. */
export async function balanceSummary(db: Database, organizationId: string): Promise<{ balance: number; available: number } | null> {
  const organization = await findOrganization(db, organizationId);
  if (organization === null) return null;
  return { balance: organization.balance, available: organization.balance - (await countPromisedProofs(db, organizationId)) };
}
