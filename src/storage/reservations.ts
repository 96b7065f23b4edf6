import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { statement } from "./statement.ts";

/**
 * An organization's row in one shard, and what of it is available: its balance minus the proofs that balance
 * already promised there (open live capture sessions and live proofs not yet sealed). One statement; null when
 * the shard has no row of the organization. An organization with write shards sums these over its shards
 * (docs/adr/0070): a stub row's balance is what the proofs sealed there debited, so it is 0 or negative.
 */
export async function balanceInShard(db: Database, organizationId: string): Promise<{ balance: number; available: number } | null> {
  return statement(
    db.$client,
    sql`SELECT balance, balance
      - (SELECT COUNT(*) FROM capture_sessions WHERE organization_id = ${organizationId} AND holds_reservation = 1)
      - (SELECT COUNT(*) FROM proofs WHERE organization_id = ${organizationId} AND holds_reservation = 1) AS available
      FROM organizations WHERE id = ${organizationId}`,
  ).first<{ balance: number; available: number }>();
}
