import { IDEMPOTENT_OPERATIONS } from "./generated/openapi.ts";
import { ListIterable } from "./pagination.ts";
import { type Call, type CallOptions, type ClientOptions, Transport } from "./transport.ts";
import type { BodyOf, Download, ItemOf, ListPage, Mode, OperationId, QueryOf, ResponseMeta, ResultOf, WithResponse } from "./types.ts";
import { webhooks } from "./webhooks.ts";

type Method = Call["method"];
const idempotent = new Set(IDEMPOTENT_OPERATIONS);
const segment = (value: string) => encodeURIComponent(value);

/** The options of the public verify calls: the call's, and the proof whose original files may match (ADR 0060). */
export interface PublicVerifyOptions extends CallOptions {
  /**
   * The proof the file or hash was taken from (`prf_…`). Its original files (as received) are then answered too; without it
   * only signed files and sealed reports match, since the same original bytes may be in anyone's proof.
   */
  proofId?: string;
}

/** The mode a key works in, from its prefix; null without a key. */
export function modeOfKey(apiKey: string | undefined): Mode | null {
  if (apiKey === undefined) return null;
  if (apiKey.startsWith("sk_test_")) return "test";
  if (apiKey.startsWith("sk_live_")) return "live";
  throw new TypeError("An API key starts with sk_test_ or sk_live_");
}

/**
 * The proof-sealing API v1. One method per route of the API document, typed from it:
 *
 * ```ts
 * const client = new ProofSeal({ apiKey: process.env.PROOFSEAL_API_KEY, baseUrl: "http://localhost:8787" });
 * const session = await client.captureSessions.create({ external_reference: "rental-42", party: "provider" });
 * for await (const proof of client.proofs.list({ linked: false })) console.log(proof.id);
 * ```
 */
export class ProofSeal {
  /** `test` or `live`, read from the key's prefix; null for a client without key (public routes only). */
  readonly mode: Mode | null;
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.mode = modeOfKey(options.apiKey);
    this.#transport = new Transport(options);
  }

  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  #json<O extends OperationId>(operationId: O, method: Method, path: string, extra: Partial<Call> = {}): Promise<WithResponse<ResultOf<O>>> {
    return this.#transport.json<ResultOf<O>>({ operationId, method, path, authenticated: true, idempotent: idempotent.has(operationId), ...extra });
  }

  #list<O extends OperationId>(operationId: O, path: string, query: object | undefined): ListIterable<ItemOf<O>> {
    const { cursor, ...filters } = (query ?? {}) as { cursor?: string };
    return new ListIterable<ItemOf<O>>(
      (next) => this.#transport.json<ListPage<ItemOf<O>>>({ operationId, method: "GET", path, authenticated: true, query: { ...filters, cursor: next } }),
      cursor,
    );
  }

  /** `GET /v1/me`: the organization, mode, key id and rights of the key in use. */
  me(options?: CallOptions) {
    return this.#json("getMe", "GET", "/v1/me", { options });
  }

  readonly captureSessions = {
    /** `POST /v1/capture-sessions`. An Idempotency-Key is generated unless given; retries reuse it, so a lost answer never makes a second session. */
    create: (body: BodyOf<"createCaptureSession">, options?: CallOptions) =>
      this.#json("createCaptureSession", "POST", "/v1/capture-sessions", { json: body, options }),
    /** `GET /v1/capture-sessions/{id}`. */
    get: (id: string, options?: CallOptions) => this.#json("getCaptureSession", "GET", `/v1/capture-sessions/${segment(id)}`, { options }),
  };

  readonly proofs = {
    /** `GET /v1/proofs`, newest first: iterate for every proof, or `.firstPage()`. */
    list: (query?: QueryOf<"listProofs">) => this.#list("listProofs", "/v1/proofs", query),
    /** `GET /v1/proofs/{id}`. */
    get: (id: string, options?: CallOptions) => this.#json("getProof", "GET", `/v1/proofs/${segment(id)}`, { options }),
  };

  readonly events = {
    /** `GET /v1/events`: the organization's event log for the key's mode, newest first. */
    list: (query?: QueryOf<"listEvents">) => this.#list("listEvents", "/v1/events", query),
  };

  readonly webhookEndpoints = {
    /** `POST /v1/webhook-endpoints`; the answer's `secret` (`whsec_…`) is shown this once. */
    create: (body: BodyOf<"createWebhookEndpoint">, options?: CallOptions) =>
      this.#json("createWebhookEndpoint", "POST", "/v1/webhook-endpoints", { json: body, options }),
    /** `GET /v1/webhook-endpoints`: every endpoint of the key's mode (at most 10, one page). */
    list: (options?: CallOptions) => this.#json("listWebhookEndpoints", "GET", "/v1/webhook-endpoints", { options }),
    /** `GET /v1/webhook-endpoints/{id}`. */
    get: (id: string, options?: CallOptions) => this.#json("getWebhookEndpoint", "GET", `/v1/webhook-endpoints/${segment(id)}`, { options }),
    /** `PATCH /v1/webhook-endpoints/{id}`: `url`, `events`, `description`, `status`. */
    update: (id: string, body: BodyOf<"updateWebhookEndpoint">, options?: CallOptions) =>
      this.#json("updateWebhookEndpoint", "PATCH", `/v1/webhook-endpoints/${segment(id)}`, { json: body, options }),
    /** `DELETE /v1/webhook-endpoints/{id}`. */
    delete: (id: string, options?: CallOptions): Promise<ResponseMeta> =>
      this.#transport.empty({
        operationId: "deleteWebhookEndpoint",
        method: "DELETE",
        path: `/v1/webhook-endpoints/${segment(id)}`,
        authenticated: true,
        options,
      }),
    /** `POST /v1/webhook-endpoints/{id}/rotate-secret`: a new secret (shown once); the old one signs too until it expires. */
    rotateSecret: (id: string, body: BodyOf<"rotateWebhookSecret"> = {}, options?: CallOptions) =>
      this.#json("rotateWebhookSecret", "POST", `/v1/webhook-endpoints/${segment(id)}/rotate-secret`, { json: body, options }),
    /** `POST /v1/webhook-endpoints/{id}/test`: a sample event (`"test": true`), signed like any delivery. */
    sendTestEvent: (id: string, body: BodyOf<"sendWebhookTestEvent"> = {}, options?: CallOptions) =>
      this.#json("sendWebhookTestEvent", "POST", `/v1/webhook-endpoints/${segment(id)}/test`, { json: body, options }),
  };

  readonly webhookDeliveries = {
    /** `GET /v1/webhook-deliveries`, filters `endpoint_id`, `status`, `event`. */
    list: (query?: QueryOf<"listWebhookDeliveries">) => this.#list("listWebhookDeliveries", "/v1/webhook-deliveries", query),
    /** `GET /v1/webhook-deliveries/{id}`: with the exact body sent (`request_body`). */
    get: (id: string, options?: CallOptions) => this.#json("getWebhookDelivery", "GET", `/v1/webhook-deliveries/${segment(id)}`, { options }),
    /** `POST /v1/webhook-deliveries/{id}/retry`: sends an abandoned or retrying delivery again. */
    retry: (id: string, options?: CallOptions) => this.#json("retryWebhookDelivery", "POST", `/v1/webhook-deliveries/${segment(id)}/retry`, { options }),
  };

  readonly captureTemplates = {
    /** `POST /v1/capture-templates`. */
    create: (body: BodyOf<"createCaptureTemplate">, options?: CallOptions) =>
      this.#json("createCaptureTemplate", "POST", "/v1/capture-templates", { json: body, options }),
    /** `GET /v1/capture-templates`. */
    list: (query?: QueryOf<"listCaptureTemplates">) => this.#list("listCaptureTemplates", "/v1/capture-templates", query),
    /** `GET /v1/capture-templates/{id}`. */
    get: (id: string, options?: CallOptions) => this.#json("getCaptureTemplate", "GET", `/v1/capture-templates/${segment(id)}`, { options }),
    /** `PATCH /v1/capture-templates/{id}` (a live template sessions were made from is frozen: duplicate it). */
    update: (id: string, body: BodyOf<"updateCaptureTemplate">, options?: CallOptions) =>
      this.#json("updateCaptureTemplate", "PATCH", `/v1/capture-templates/${segment(id)}`, { json: body, options }),
    /** `DELETE /v1/capture-templates/{id}`: archives it. */
    archive: (id: string, options?: CallOptions) => this.#json("archiveCaptureTemplate", "DELETE", `/v1/capture-templates/${segment(id)}`, { options }),
    /** `POST /v1/capture-templates/{id}/duplicate`. */
    duplicate: (id: string, body: BodyOf<"duplicateCaptureTemplate">, options?: CallOptions) =>
      this.#json("duplicateCaptureTemplate", "POST", `/v1/capture-templates/${segment(id)}/duplicate`, { json: body, options }),
  };

  readonly captureThemes = {
    /** `POST /v1/capture-themes`. */
    create: (body: BodyOf<"createCaptureTheme">, options?: CallOptions) =>
      this.#json("createCaptureTheme", "POST", "/v1/capture-themes", { json: body, options }),
    /** `GET /v1/capture-themes`. */
    list: (query?: QueryOf<"listCaptureThemes">) => this.#list("listCaptureThemes", "/v1/capture-themes", query),
    /** `GET /v1/capture-themes/{id}`. */
    get: (id: string, options?: CallOptions) => this.#json("getCaptureTheme", "GET", `/v1/capture-themes/${segment(id)}`, { options }),
    /** `PATCH /v1/capture-themes/{id}`. */
    update: (id: string, body: BodyOf<"updateCaptureTheme">, options?: CallOptions) =>
      this.#json("updateCaptureTheme", "PATCH", `/v1/capture-themes/${segment(id)}`, { json: body, options }),
    /** `DELETE /v1/capture-themes/{id}`: archives it (refused while a template uses it). */
    archive: (id: string, options?: CallOptions) => this.#json("archiveCaptureTheme", "DELETE", `/v1/capture-themes/${segment(id)}`, { options }),
    /** `PUT /v1/capture-themes/{id}/logo`: PNG, JPEG, WebP or SVG bytes. */
    uploadLogo: (id: string, logo: Uint8Array | Blob, contentType: "image/png" | "image/jpeg" | "image/webp" | "image/svg+xml", options?: CallOptions) =>
      this.#json("uploadCaptureThemeLogo", "PUT", `/v1/capture-themes/${segment(id)}/logo`, { bytes: { body: logo, contentType }, options }),
  };

  readonly settings = {
    /** `GET /v1/settings`: the key's mode's allowed return origins. */
    get: (options?: CallOptions) => this.#json("getSettings", "GET", "/v1/settings", { options }),
    /** `PATCH /v1/settings`: replaces the key's mode's allowed return origins. */
    update: (body: BodyOf<"updateSettings">, options?: CallOptions) => this.#json("updateSettings", "PATCH", "/v1/settings", { json: body, options }),
  };

  /** The public routes: no key needed, anyone may verify a proof. */
  readonly public = {
    /** `GET /v1/public/proofs/{id}`: public fields and the verification's verdict and checks. */
    getProof: (id: string, options?: CallOptions) => this.#json("getPublicProof", "GET", `/v1/public/proofs/${segment(id)}`, { authenticated: false, options }),
    /** `GET /v1/public/proofs/{id}/package`: the verification package (ZIP) for `proof-verify` or openssl. */
    downloadPackage: (id: string, options?: CallOptions): Promise<Download> =>
      this.#transport.download({
        operationId: "getPublicProofPackage",
        method: "GET",
        path: `/v1/public/proofs/${segment(id)}/package`,
        authenticated: false,
        options,
      }),
    /** `GET /v1/public/proofs/{id}/files/{file_id}`: a signed file. */
    downloadFile: (id: string, fileId: string, options?: CallOptions): Promise<Download> =>
      this.#transport.download({
        operationId: "getPublicProofFile",
        method: "GET",
        path: `/v1/public/proofs/${segment(id)}/files/${segment(fileId)}`,
        authenticated: false,
        options,
      }),
    /** `GET /v1/public/proofs/{id}/files/{file_id}/thumbnail`: the WebP thumbnail of a photo. */
    downloadThumbnail: (id: string, fileId: string, options?: CallOptions): Promise<Download> =>
      this.#transport.download({
        operationId: "getPublicProofThumbnail",
        method: "GET",
        path: `/v1/public/proofs/${segment(id)}/files/${segment(fileId)}/thumbnail`,
        authenticated: false,
        options,
      }),
    /** `GET /v1/public/proofs/{id}/report.pdf`: the proof's sealed PDF report (404 `report_not_ready` until made, just after sealing). */
    downloadReport: (id: string, options?: CallOptions): Promise<Download> =>
      this.#transport.download({
        operationId: "getPublicProofReport",
        method: "GET",
        path: `/v1/public/proofs/${segment(id)}/report.pdf`,
        authenticated: false,
        options,
      }),
    /** `GET /v1/public/proofs/{id}/pair-report.pdf`: the before/after pair's sealed PDF report, through either proof (404 `report_not_ready` until the after is sealed and it is made). */
    downloadPairReport: (id: string, options?: CallOptions): Promise<Download> =>
      this.#transport.download({
        operationId: "getPublicPairReport",
        method: "GET",
        path: `/v1/public/proofs/${segment(id)}/pair-report.pdf`,
        authenticated: false,
        options,
      }),
    /**
     * `POST /v1/public/verify` with `{ sha256, proof_id }`: the proofs holding a signed file or report with that hash, and
     * the proof named by `proofId` if it holds those bytes as received (`match: original`). An original's hash answers
     * only for the proof named: without `proofId` it matches nothing (docs/adr/0060).
     */
    verifyHash: (sha256: string, options?: PublicVerifyOptions) => {
      const { proofId, ...call } = options ?? {};
      const json = { sha256, ...(proofId === undefined ? {} : { proof_id: proofId }) } satisfies BodyOf<"verifyFile">;
      return this.#json("verifyFile", "POST", "/v1/public/verify", { json, authenticated: false, options: call });
    },
    /** `POST /v1/public/verify` with the file's bytes (and `?proof_id=` from `proofId`): as `verifyHash`, the SHA-256 computed by the API. */
    verifyFile: (file: Uint8Array | Blob, options?: PublicVerifyOptions) => {
      const { proofId, ...call } = options ?? {};
      return this.#json("verifyFile", "POST", "/v1/public/verify", {
        bytes: { body: file, contentType: "application/octet-stream" },
        query: { proof_id: proofId } satisfies QueryOf<"verifyFile">,
        authenticated: false,
        options: call,
      });
    },
    /** `GET /v1/public/trust-anchors`: the roots proofs chain to, with their fingerprints (pin them from elsewhere too). */
    trustAnchors: (options?: CallOptions) => this.#json("listTrustAnchors", "GET", "/v1/public/trust-anchors", { authenticated: false, options }),
    /** `GET /health`: `status`, `version`, `commit` of the running build. */
    health: (options?: CallOptions) => this.#json("getHealth", "GET", "/health", { authenticated: false, options }),
    /** `GET /errors/{slug}`: what an error code means. */
    describeError: (code: string, options?: CallOptions) =>
      this.#json("getErrorDescription", "GET", `/errors/${segment(code)}`, { authenticated: false, options }),
  };

  /** The human verification page of a proof (its `verification_url` says the same). */
  verificationPageUrl(proofId: string): string {
    return `${this.baseUrl}/p/${segment(proofId)}`;
  }

  /** `webhooks.verify(rawBody, header, secret | secrets, { toleranceSeconds, now })`: see `verifyWebhook`. */
  readonly webhooks = webhooks;
}
