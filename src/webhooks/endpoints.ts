import { and, eq } from "drizzle-orm";
import type { Env, ApiCaller } from "../env.ts";
import type { Database } from "../db/client.ts";
import { webhookEndpoints, webhookSecrets } from "../db/schema/index.ts";
import { ApiError } from "../errors/api-error.ts";
import { newId } from "../lib/ids.ts";
import { countEndpoints, findEndpoint, isActiveSecret, secretsOf } from "../storage/webhooks.ts";
import { encryptSecret, newWebhookSecret, secretHint } from "./secrets.ts";
import { checkWebhookUrl } from "./url-rules.ts";
import { presentEndpoint } from "./present.ts";
import type { SubscribableEvent } from "../events/types.ts";

const MAX_ENDPOINTS_PER_MODE = 10;

async function secretRow(env: Env, endpointId: string, now: Date) {
  const secret = newWebhookSecret();
  const sealed = await encryptSecret(env.WEBHOOK_SECRET_KEY, secret);
  return { secret, row: { id: newId("whs"), endpointId, ...sealed, hint: secretHint(secret), expiresAt: null, createdAt: now.toISOString() } };
}

export async function createEndpoint(env: Env, db: Database, caller: ApiCaller, input: { url: string; events: SubscribableEvent[]; description?: string }, now: Date) {
  checkWebhookUrl(input.url);
  if ((await countEndpoints(db, caller.organizationId, caller.mode)) >= MAX_ENDPOINTS_PER_MODE) throw new ApiError("webhook_endpoint_limit_reached");
  const endpoint = {
    id: newId("whe"),
    organizationId: caller.organizationId,
    mode: caller.mode,
    url: input.url,
    description: input.description ?? null,
    events: input.events,
    status: "active" as const,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const { secret, row } = await secretRow(env, endpoint.id, now);
  await db.batch([db.insert(webhookEndpoints).values(endpoint), db.insert(webhookSecrets).values(row)]);
  return presentEndpoint(endpoint, [row], now, secret);
}

export async function endpointOrThrow(db: Database, caller: ApiCaller, id: string) {
  const endpoint = await findEndpoint(db, caller.organizationId, caller.mode, id);
  if (endpoint === null) throw new ApiError("webhook_endpoint_not_found");
  return endpoint;
}

export async function updateEndpoint(
  db: Database,
  caller: ApiCaller,
  id: string,
  changes: { url?: string; events?: SubscribableEvent[]; description?: string | null; status?: "active" | "disabled" },
  now: Date,
) {
  const endpoint = await endpointOrThrow(db, caller, id);
  if (changes.url !== undefined) checkWebhookUrl(changes.url);
  const updated = {
    ...endpoint,
    url: changes.url ?? endpoint.url,
    events: changes.events ?? endpoint.events,
    description: changes.description === undefined ? endpoint.description : changes.description,
    status: changes.status ?? endpoint.status,
    updatedAt: now.toISOString(),
  };
  await db.update(webhookEndpoints).set(updated).where(eq(webhookEndpoints.id, id));
  return presentEndpoint(updated, (await secretsOf(db, [id])).get(id) ?? [], now);
}

/**
 * Rotation: the current secret keeps signing until `expires_in_seconds` from now, beside a new one; a
 * rotation while two secrets are active is refused (`409 rotation_in_progress`).
 */
export async function rotateSecret(env: Env, db: Database, caller: ApiCaller, id: string, expiresInSeconds: number, now: Date) {
  const endpoint = await endpointOrThrow(db, caller, id);
  const current = ((await secretsOf(db, [id])).get(id) ?? []).filter((secret) => isActiveSecret(secret, now));
  if (current.length >= 2) throw new ApiError("rotation_in_progress");
  const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000).toISOString();
  const { secret, row } = await secretRow(env, id, now);
  await db.batch([
    db
      .update(webhookSecrets)
      .set({ expiresAt })
      .where(and(eq(webhookSecrets.endpointId, id), eq(webhookSecrets.id, current[0]?.id ?? ""))),
    db.insert(webhookSecrets).values(row),
    db.update(webhookEndpoints).set({ updatedAt: now.toISOString() }).where(eq(webhookEndpoints.id, id)),
  ]);
  return presentEndpoint({ ...endpoint, updatedAt: now.toISOString() }, (await secretsOf(db, [id])).get(id) ?? [], now, secret);
}
