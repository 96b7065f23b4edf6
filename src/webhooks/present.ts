import { isActiveSecret } from "../storage/webhooks.ts";
import type { EndpointRow, SecretRow } from "../storage/rows.ts";
import { serialisedWebhookUrl } from "./url-rules.ts";

export function presentEndpoint(endpoint: EndpointRow, secrets: SecretRow[], now: Date, revealedSecret?: string) {
  return {
    id: endpoint.id,
    mode: endpoint.mode,
    url: serialisedWebhookUrl(endpoint.url),
    description: endpoint.description,
    events: endpoint.events,
    status: endpoint.status,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
    // Only the secrets that still sign: one, or two during a rotation (the specification). Expired rows
    // stay stored, for audit, but are no longer listed.
    secrets: secrets
      .filter((secret) => isActiveSecret(secret, now))
      .map((secret) => ({ id: secret.id, hint: secret.hint, status: "active" as const, expires_at: secret.expiresAt, created_at: secret.createdAt })),
    ...(revealedSecret === undefined ? {} : { secret: revealedSecret }),
  };
}
