import { and, asc, count, eq } from "drizzle-orm";
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

export async function secretsOf(db: Database, endpointIds: string[]): Promise<Map<string, SecretRow[]>> {
  const rows = endpointIds.length === 0 ? [] : await db.select().from(webhookSecrets).orderBy(asc(webhookSecrets.createdAt)).all();
  const byEndpoint = new Map<string, SecretRow[]>();
  for (const row of rows) if (endpointIds.includes(row.endpointId)) byEndpoint.set(row.endpointId, [...(byEndpoint.get(row.endpointId) ?? []), row]);
  return byEndpoint;
}

/** A secret signs while it has no expiry (the current one) or its expiry is still ahead. */
export const isActiveSecret = (secret: SecretRow, now: Date) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime();
