import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookEndpoints, webhookSecrets } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import type { EndpointRow, SecretRow } from "./rows.ts";

export type NewSecret = typeof webhookSecrets.$inferInsert;

/** No other endpoint of the same organization and mode has this URL (as stored). */
const urlIsFree = (endpoint: { id: string; organizationId: string; mode: Mode; url: string }) =>
  sql`NOT EXISTS (SELECT 1 FROM webhook_endpoints AS other WHERE other.organization_id = ${endpoint.organizationId} AND other.mode = ${endpoint.mode} AND other.url = ${endpoint.url} AND other.id <> ${endpoint.id})`;

/**
 * An endpoint and its first signing secret, together or not at all, and only while its mode has fewer than
 * `maxPerMode` endpoints and none with its URL: decided in the statement, so that two creations at once
 * cannot both take the last slot or the same URL (issue 28). False when refused.
 */
export async function insertEndpoint(db: Database, endpoint: EndpointRow, secret: NewSecret, maxPerMode: number): Promise<boolean> {
  const room = sql`(SELECT COUNT(*) FROM webhook_endpoints WHERE organization_id = ${endpoint.organizationId} AND mode = ${endpoint.mode}) < ${maxPerMode}`;
  const [inserted] = await db.batch([
    db.insert(webhookEndpoints).select(
      // Every column in the table's order (migrations/0004).
      sql`SELECT ${endpoint.id}, ${endpoint.organizationId}, ${endpoint.mode}, ${endpoint.url}, ${endpoint.description}, ${JSON.stringify(endpoint.events)}, ${endpoint.status}, ${endpoint.createdAt}, ${endpoint.updatedAt} WHERE ${room} AND ${urlIsFree(endpoint)}`,
    ),
    db
      .insert(webhookSecrets)
      .select(
        sql`SELECT ${secret.id}, ${secret.endpointId}, ${secret.ciphertext}, ${secret.iv}, ${secret.hint}, ${secret.expiresAt ?? null}, ${secret.createdAt} WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ${endpoint.id})`,
      ),
  ]);
  return inserted.meta.changes === 1;
}

/**
 * Writes an endpoint's every column as given (the caller read it and applied the changes); with a new URL,
 * only while no other endpoint of its mode has that URL. False when nothing was written (refused, or the
 * endpoint deleted meanwhile).
 */
export async function replaceEndpoint(db: Database, endpoint: EndpointRow, urlChanged: boolean): Promise<boolean> {
  const result = await db
    .update(webhookEndpoints)
    .set(endpoint)
    .where(and(eq(webhookEndpoints.id, endpoint.id), urlChanged ? urlIsFree(endpoint) : undefined));
  return result.meta.changes === 1;
}

/** In one batch: the current secret gets its expiry, the new one is added, the endpoint is marked updated. */
export async function rotateEndpointSecret(
  db: Database,
  rotation: { endpointId: string; expiringSecretId: string; expiresAt: string; newSecret: NewSecret; updatedAt: string },
): Promise<void> {
  await db.batch([
    db
      .update(webhookSecrets)
      .set({ expiresAt: rotation.expiresAt })
      .where(and(eq(webhookSecrets.endpointId, rotation.endpointId), eq(webhookSecrets.id, rotation.expiringSecretId))),
    db.insert(webhookSecrets).values(rotation.newSecret),
    db.update(webhookEndpoints).set({ updatedAt: rotation.updatedAt }).where(eq(webhookEndpoints.id, rotation.endpointId)),
  ]);
}

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
