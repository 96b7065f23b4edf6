import { and, asc, count, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookEndpoints, webhookSecrets } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type SecretRow = typeof webhookSecrets.$inferSelect;

export async function findEndpoint(db: Database, organizationId: string, mode: Mode, id: string): Promise<EndpointRow | null> {
  const row = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.mode, mode)))
    .get();
  return row ?? null;
}

export async function listEndpoints(db: Database, organizationId: string, mode: Mode): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.mode, mode)))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
    .all();
}

export async function countEndpoints(db: Database, organizationId: string, mode: Mode): Promise<number> {
  const row = await db.select({ n: count() }).from(webhookEndpoints).where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.mode, mode))).get();
  return row?.n ?? 0;
}

/** D1 binds at most 100 parameters per query: endpoint ids are looked up this many at a time. */
const IDS_PER_QUERY = 90;

/** The secrets of these endpoints only, oldest first per endpoint. */
export async function secretsOf(db: Database, endpointIds: string[]): Promise<Map<string, SecretRow[]>> {
  const byEndpoint = new Map<string, SecretRow[]>();
  const unique = [...new Set(endpointIds)];
  for (let start = 0; start < unique.length; start += IDS_PER_QUERY) {
    const rows = await db
      .select()
      .from(webhookSecrets)
      .where(inArray(webhookSecrets.endpointId, unique.slice(start, start + IDS_PER_QUERY)))
      .orderBy(asc(webhookSecrets.createdAt), asc(webhookSecrets.id))
      .all();
    for (const row of rows) byEndpoint.set(row.endpointId, [...(byEndpoint.get(row.endpointId) ?? []), row]);
  }
  return byEndpoint;
}

/** A secret signs while it has no expiry (the current one) or its expiry is still ahead. */
/** Its secrets go with it (ON DELETE CASCADE, migrations/0004). */
export async function deleteEndpoint(db: Database, id: string): Promise<void> {
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}

export const isActiveSecret = (secret: SecretRow, now: Date) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime();
