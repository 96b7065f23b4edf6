import type { Env } from "../env.ts";
import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { newId } from "../lib/ids.ts";
import { findEndpoint, insertEndpoint, isActiveSecret, listEndpoints, replaceEndpoint, rotateEndpointSecret, secretsOf } from "../storage/webhooks.ts";
import { encryptSecret, newWebhookSecret, secretHint } from "./secrets.ts";
import { checkWebhookUrl, serialisedWebhookUrl } from "./url-rules.ts";
import { presentEndpoint } from "./present.ts";
import type { SubscribableEvent } from "../events/types.ts";
import type { EndpointRow } from "../storage/rows.ts";

const MAX_ENDPOINTS_PER_MODE = 10;

/**
 * One endpoint per URL in a mode: a second one would receive every event twice and take one of the ten
 * slots for nothing (issue 28). URLs are compared serialised, so `HTTPS://Hooks.Example.com:443/x` is
 * `https://hooks.example.com/x`. Refused (422, like the other URL rules) rather than answered with the
 * existing endpoint, whose secret is never shown again.
 */
function refuseDuplicateUrl(endpoints: readonly EndpointRow[], url: string, exceptId?: string): void {
  const same = endpoints.find((endpoint) => endpoint.id !== exceptId && serialisedWebhookUrl(endpoint.url) === url);
  if (same !== undefined) {
    throw new ApiError("webhook_url_already_registered", {
      field: "/url",
      detail: `Endpoint ${same.id} already has this URL.`,
      extra: { endpoint_id: same.id },
    });
  }
}

async function secretRow(env: Env, endpointId: string, now: Date) {
  const secret = newWebhookSecret();
  const sealed = await encryptSecret(env.WEBHOOK_SECRET_KEY, secret);
  return { secret, row: { id: newId("whs"), endpointId, ...sealed, hint: secretHint(secret), expiresAt: null, createdAt: now.toISOString() } };
}

export async function createEndpoint({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env" | "db" | "caller" | "now">;
  input: { url: string; events: SubscribableEvent[]; description?: string };
}) {
  const { env, db, caller, now } = ctx;
  const url = checkWebhookUrl(input.url).href;
  const existing = await listEndpoints(db, caller.organizationId, caller.mode);
  refuseDuplicateUrl(existing, url);
  if (existing.length >= MAX_ENDPOINTS_PER_MODE) throw new ApiError("webhook_endpoint_limit_reached");
  const endpoint = {
    id: newId("whe"),
    organizationId: caller.organizationId,
    mode: caller.mode,
    url,
    description: input.description ?? null,
    events: input.events,
    status: "active" as const,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const { secret, row } = await secretRow(env, endpoint.id, now);
  if (!(await insertEndpoint(db, endpoint, row, MAX_ENDPOINTS_PER_MODE))) {
    // Another creation took the URL or the last slot since the list was read: say which.
    refuseDuplicateUrl(await listEndpoints(db, caller.organizationId, caller.mode), url);
    throw new ApiError("webhook_endpoint_limit_reached");
  }
  return presentEndpoint(endpoint, [row], now, secret);
}

export async function endpointOrThrow({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller">; input: { id: string } }) {
  const endpoint = await findEndpoint(ctx.db, ctx.caller.organizationId, ctx.caller.mode, input.id);
  if (endpoint === null) throw new ApiError("webhook_endpoint_not_found");
  return endpoint;
}

/**
 * An endpoint that will receive what is sent now: a disabled one receives nothing (its deliveries are
 * abandoned when due), so a test event or a manual retry to it is refused rather than accepted for nothing.
 */
export function requireActiveEndpoint(endpoint: EndpointRow): void {
  if (endpoint.status === "disabled") throw new ApiError("webhook_endpoint_disabled");
}

export async function updateEndpoint({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "db" | "caller" | "now">;
  input: { id: string; changes: { url?: string; events?: SubscribableEvent[]; description?: string | null; status?: "active" | "disabled" } };
}) {
  const { db, now } = ctx;
  const { id, changes } = input;
  const endpoint = await endpointOrThrow({ ctx, input: { id } });
  const url = changes.url === undefined ? endpoint.url : checkWebhookUrl(changes.url).href;
  if (changes.url !== undefined) refuseDuplicateUrl(await listEndpoints(db, ctx.caller.organizationId, ctx.caller.mode), url, id);
  const updated = {
    ...endpoint,
    url,
    events: changes.events ?? endpoint.events,
    description: changes.description === undefined ? endpoint.description : changes.description,
    status: changes.status ?? endpoint.status,
    updatedAt: now.toISOString(),
  };
  if (!(await replaceEndpoint(db, updated, changes.url !== undefined))) {
    // Another endpoint took the URL since the list was read, or this one was deleted meanwhile.
    refuseDuplicateUrl(await listEndpoints(db, ctx.caller.organizationId, ctx.caller.mode), url, id);
    throw new ApiError("webhook_endpoint_not_found");
  }
  return presentEndpoint(updated, (await secretsOf(db, [id])).get(id) ?? [], now);
}

/**
 * Rotation: the current secret keeps signing until `expires_in_seconds` from now, beside a new one; a
 * rotation while two secrets are active is refused (`409 rotation_in_progress`).
 */
export async function rotateSecret({
  ctx,
  input,
}: {
  ctx: Pick<DomainContext, "env" | "db" | "caller" | "now">;
  input: { id: string; expiresInSeconds: number };
}) {
  const { env, db, now } = ctx;
  const { id, expiresInSeconds } = input;
  const endpoint = await endpointOrThrow({ ctx, input: { id } });
  const current = ((await secretsOf(db, [id])).get(id) ?? []).filter((secret) => isActiveSecret(secret, now));
  if (current.length >= 2) throw new ApiError("rotation_in_progress");
  const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000).toISOString();
  const { secret, row } = await secretRow(env, id, now);
  await rotateEndpointSecret(db, { endpointId: id, expiringSecretId: current[0]?.id ?? "", expiresAt, newSecret: row, updatedAt: now.toISOString() });
  return presentEndpoint({ ...endpoint, updatedAt: now.toISOString() }, (await secretsOf(db, [id])).get(id) ?? [], now, secret);
}
