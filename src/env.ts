import type { RateLimitBucket } from "./durable/rate-limit-bucket.ts";
import type { IdempotencyRecord } from "./durable/idempotency-record.ts";
import type { ProofLinkLock } from "./durable/proof-link-lock.ts";
import type { Right } from "./auth/rights.ts";
import type { Mode } from "./auth/mode.ts";
import type { Database } from "./db/client.ts";

/** Bindings declared in wrangler.toml, plus the secrets and variables set per environment. */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  ASSETS: Fetcher;
  RATE_LIMIT_BUCKET: DurableObjectNamespace<RateLimitBucket>;
  IDEMPOTENCY: DurableObjectNamespace<IdempotencyRecord>;
  PROOF_LINK_LOCK: DurableObjectNamespace<ProofLinkLock>;
  SEALING_QUEUE: Queue;
  WEBHOOK_QUEUE: Queue;

  API_BASE_URL: string;
  CAPTURE_BASE_URL: string;
  BUILD_COMMIT: string;
  /** Operator API bearer token (secret). */
  ADMIN_TOKEN?: string;
  /** Bearer token for GET /health/details (secret, not an API key). */
  SUPERVISION_TOKEN?: string;
  /** URL of the sealer service (local development); production uses the container binding. */
  SEALER_URL?: string;
  /** Bearer token the Worker sends to the sealer (secret shared by both). */
  SEALER_SECRET?: string;
  /** HMAC key of locally signed upload/download URLs (when no R2 S3 credentials are configured). */
  UPLOAD_URL_SIGNING_KEY?: string;
  /** R2 S3-API credentials (production): uploads go straight to storage through presigned URLs. */
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  R2_S3_ENDPOINT?: string;
  R2_BUCKET_NAME?: string;
  /** AES-GCM key (base64, 32 bytes) encrypting webhook signing secrets at rest. */
  WEBHOOK_SECRET_KEY?: string;
  /** Local development only: `host:port=127.0.0.1:port,…` sends those deliveries over HTTP to loopback. */
  WEBHOOK_RESOLVE?: string;
  /** Local development only: divides the retry delays, so tests can watch retries happen. */
  WEBHOOK_RETRY_SCALE?: string;
  /** DNS-over-HTTPS JSON resolver asked before each delivery (default Cloudflare's): non-public answers are refused. */
  WEBHOOK_DNS_RESOLVER_URL?: string;
  /** The sealer's configuration, passed to its container (sealer/README.md); its chains are files of its image. */
  C2PA_SIGNING_KEY_PEM?: string;
  TSA_URL?: string;
  TSA_NAME?: string;
  SEALER_MEMORY_BUDGET_MB?: string;
  /** The sealer as a Cloudflare Container (production). */
  SEALER_CONTAINER?: DurableObjectNamespace;
}

/** The authenticated caller, set by the API-key middleware. */
export interface ApiCaller {
  keyId: string;
  organizationId: string;
  organizationName: string;
  mode: Mode;
  rights: readonly Right[];
  rateLimitPerMinute: number;
}

export interface HonoEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    locale: "en" | "fr";
    caller: ApiCaller;
    /** The database client (src/middleware/database.ts); queries go through src/storage/ functions taking it. */
    db: Database;
  };
}
