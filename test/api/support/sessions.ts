import { callJson } from "./client.ts";

export function createSession(key: string, body: Record<string, unknown>, idempotencyKey: string = crypto.randomUUID()) {
  return callJson("/v1/capture-sessions", { key, body, headers: { "Idempotency-Key": idempotencyKey } });
}

export const baseSession = () => ({ external_reference: `ref-${crypto.randomUUID()}`, party: "provider" });
