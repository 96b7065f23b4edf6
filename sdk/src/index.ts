export { ProofSeal, modeOfKey, type PublicVerifyOptions } from "./client.ts";
export { ProofSealConnectionError, ProofSealError, WebhookVerificationError, type ProblemCode, type WebhookVerificationReason } from "./errors.ts";
export { API_VERSION, WEBHOOK_EVENTS } from "./generated/openapi.ts";
export type { components, operations, paths, webhooks as WebhookDefinitions } from "./generated/openapi.ts";
export { ListIterable } from "./pagination.ts";
export type { CallOptions, ClientOptions } from "./transport.ts";
export type {
  BodyOf,
  Download,
  ItemOf,
  ListPage,
  Mode,
  OperationId,
  QueryOf,
  RateLimit,
  ResponseMeta,
  ResultOf,
  Schemas,
  WebhookEvent,
  WebhookEventName,
  WebhookEventOf,
  WithResponse,
} from "./types.ts";
export { signWebhook, type VerifyOptions, verifyWebhook, webhooks } from "./webhooks.ts";
