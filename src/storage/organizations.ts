import { and, count, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { balanceAdjustments, organizations } from "../db/schema/index.ts";
import { newShardedId, type ShardCode } from "../db/shards.ts";
import { newId } from "../lib/ids.ts";
import { type BalanceScope, beforeDeadline } from "./capture-sessions.ts";

export interface Organization {
  id: string;
  name: string;
  balance: number;
}

/** A new organization in `db`, the database of `shard`, which its id names (src/db/shards.ts). */
export async function insertOrganization(db: Database, shard: ShardCode, name: string, now: string): Promise<Organization> {
  const organization = { id: newShardedId("org", shard), name, balance: 0 };
  await db.insert(organizations).values({ ...organization, createdAt: now, updatedAt: now });
  return organization;
}

/** How many organizations live in `db` (one shard). */
export async function countOrganizations(db: Database): Promise<number> {
  const row = await db.select({ organizations: count() }).from(organizations).get();
  return row?.organizations ?? 0;
}

export async function findOrganization(db: Database, id: string): Promise<Organization | null> {
  const row = await db
    .select({ id: organizations.id, name: organizations.name, balance: organizations.balance })
    .from(organizations)
    .where(eq(organizations.id, id))
    .get();
  return row ?? null;
}

/**
 * Adds `amount` to the balance and records why, atomically, in the organization's home shard (`db`). A debit
 * applies only while the available balance (the balance minus the proofs promised, ADR 0005) covers it, so
 * the balance never goes below zero and no promise is left uncovered: the adjustment row is inserted only
 * under that condition, and the balance moves only if that row exists, both in one batch that D1 runs
 * atomically. `scope` says where the rest of the balance is (docs/adr/0070, as for a live session's insert):
 * `homeOnly`, a debit also requires that the organization still has no write shard; `othersAvailable`, what
 * its other shards have available, summed by its account's Durable Object, which decides debits and live
 * creations one at a time. A credit applies in any case. Returns whether it applied.
 */
export async function adjustBalance(db: Database, organizationId: string, amount: number, reason: string, now: string, scope: BalanceScope): Promise<boolean> {
  const id = newId("bal");
  const here = sql`${organizations.balance}
    - (SELECT COUNT(*) FROM capture_sessions WHERE organization_id = ${organizationId} AND holds_reservation = 1)
    - (SELECT COUNT(*) FROM proofs WHERE organization_id = ${organizationId} AND holds_reservation = 1)`;
  const covered =
    "othersAvailable" in scope
      ? sql`${here} + ${scope.othersAvailable} + ${amount} >= 0 AND ${beforeDeadline(scope.decidedBefore)}`
      : sql`${here} + ${amount} >= 0 AND NOT EXISTS (SELECT 1 FROM organization_write_shards WHERE organization_id = ${organizationId})`;
  const [inserted] = await db.batch([
    db.insert(balanceAdjustments).select(
      db
        .select({
          id: sql`${id}`.as("id"),
          organizationId: organizations.id,
          amount: sql`${amount}`.as("amount"),
          reason: sql`${reason}`.as("reason"),
          createdAt: sql`${now}`.as("created_at"),
        })
        .from(organizations)
        .where(and(eq(organizations.id, organizationId), sql`(${amount} >= 0 OR (${covered}))`)),
    ),
    db
      .update(organizations)
      .set({ balance: sql`${organizations.balance} + ${amount}`, updatedAt: now })
      .where(and(eq(organizations.id, organizationId), sql`EXISTS (SELECT 1 FROM balance_adjustments WHERE id = ${id})`)),
  ]);
  return inserted.meta.changes === 1;
}
