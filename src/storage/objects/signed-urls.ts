import { AwsClient } from "aws4fetch";
import type { Env } from "../../env.ts";
import { hmacSha256Hex } from "../../../shared/hmac-sha256.ts";
import { type LocalGrant, localGrantUrl, readLocalGrant } from "../../../shared/local-storage-grant.ts";
import { timingSafeEqualStrings } from "../../lib/crypto.ts";

/** A request the holder of the URL may make, and nothing else. */
export interface SignedRequest {
  method: "PUT" | "GET" | "DELETE";
  url: string;
  headers: Record<string, string>;
}

export interface UploadGrant {
  key: string;
  /** Hex SHA-256 the stored bytes must have; storage itself refuses other bytes. */
  sha256?: string;
  size?: number;
  contentType?: string;
  /** The declared capture file this upload fills, so the local route can record it. */
  fileId?: string;
  /** One part of a multipart upload. */
  part?: { uploadId: string; partNumber: number };
  expiresInSeconds: number;
}

const hexToBase64 = (hex: string) => btoa(String.fromCharCode(...(hex.match(/../g) ?? []).map((byte) => parseInt(byte, 16))));

function s3Client(env: Env): AwsClient | null {
  if (!env.R2_ACCESS_KEY_ID || !env.R2_SECRET_ACCESS_KEY || !env.R2_S3_ENDPOINT) return null;
  return new AwsClient({ accessKeyId: env.R2_ACCESS_KEY_ID, secretAccessKey: env.R2_SECRET_ACCESS_KEY, service: "s3", region: "auto" });
}

/** Where phones send files when uploads go straight to R2 (production); null when they go through the Worker. */
export function s3UploadOrigin(env: Env): string | null {
  return s3Client(env) === null ? null : new URL(env.R2_S3_ENDPOINT!).origin;
}

function s3ObjectUrl(env: Env, key: string, expiresInSeconds: number): URL {
  const url = new URL(
    `${env.R2_S3_ENDPOINT!.replace(/\/$/, "")}/${env.R2_BUCKET_NAME ?? "proof-sealing-files"}/${key.split("/").map(encodeURIComponent).join("/")}`,
  );
  url.searchParams.set("X-Amz-Expires", String(expiresInSeconds));
  return url;
}

const signLocal = (env: Env, grant: LocalGrant) => localGrantUrl(env.CAPTURE_BASE_URL, localSigningKey(env), grant);

function localSigningKey(env: Env): string {
  if (!env.UPLOAD_URL_SIGNING_KEY) throw new Error("UPLOAD_URL_SIGNING_KEY is not configured");
  return env.UPLOAD_URL_SIGNING_KEY;
}

/**
 * A short-lived URL that writes one object and nothing else. Production: an R2 S3-API presigned PUT
 * whose signed `x-amz-checksum-sha256` (whole files) and `Content-Length` (files and parts) make storage
 * refuse other bytes. Local development and tests: an
 * HMAC-signed route on the capture host that streams into the R2 binding with the same digest check.
 */
export async function issueUploadUrl(env: Env, grant: UploadGrant): Promise<SignedRequest & { expiresAt: string }> {
  const expiresAt = new Date(Date.now() + grant.expiresInSeconds * 1000).toISOString();
  const headers: Record<string, string> = {};
  if (grant.contentType) headers["Content-Type"] = grant.contentType;
  const client = s3Client(env);
  if (client !== null) {
    if (grant.sha256 && grant.part === undefined) headers["x-amz-checksum-sha256"] = hexToBase64(grant.sha256);
    const url = s3ObjectUrl(env, grant.key, grant.expiresInSeconds);
    if (grant.part) {
      url.searchParams.set("partNumber", String(grant.part.partNumber));
      url.searchParams.set("uploadId", grant.part.uploadId);
    }
    // The exact length is signed, so storage refuses any other body: a part has no checksum of its own,
    // and without it a part URL would take up to 5 GiB until the completion noticed. Browsers send
    // Content-Length themselves (they refuse to let a script set it), so it is not among the headers
    // returned to the holder.
    const signedHeaders = grant.size === undefined ? headers : { ...headers, "Content-Length": String(grant.size) };
    const signed = await client.sign(new Request(url, { method: "PUT", headers: signedHeaders }), {
      aws: { signQuery: true, allHeaders: true },
    });
    return { method: "PUT", url: signed.url, headers, expiresAt };
  }
  const url = await signLocal(env, {
    m: "PUT",
    k: grant.key,
    s: grant.sha256,
    n: grant.size,
    c: grant.contentType,
    f: grant.fileId,
    u: grant.part?.uploadId,
    p: grant.part?.partNumber,
    e: Math.floor(Date.now() / 1000) + grant.expiresInSeconds,
  });
  return { method: "PUT", url, headers, expiresAt };
}

/** A short-lived URL that reads one object. */
export async function issueDownloadUrl(env: Env, key: string, expiresInSeconds: number): Promise<SignedRequest> {
  const client = s3Client(env);
  if (client !== null) {
    const signed = await client.sign(new Request(s3ObjectUrl(env, key, expiresInSeconds), { method: "GET" }), { aws: { signQuery: true } });
    return { method: "GET", url: signed.url, headers: {} };
  }
  const url = await signLocal(env, { m: "GET", k: key, e: Math.floor(Date.now() / 1000) + expiresInSeconds });
  return { method: "GET", url, headers: {} };
}

/** A short-lived URL that deletes one object: how the sealer removes the copies of a run it abandons. */
export async function issueDeleteUrl(env: Env, key: string, expiresInSeconds: number): Promise<SignedRequest> {
  const client = s3Client(env);
  if (client !== null) {
    const signed = await client.sign(new Request(s3ObjectUrl(env, key, expiresInSeconds), { method: "DELETE" }), { aws: { signQuery: true } });
    return { method: "DELETE", url: signed.url, headers: {} };
  }
  const url = await signLocal(env, { m: "DELETE", k: key, e: Math.floor(Date.now() / 1000) + expiresInSeconds });
  return { method: "DELETE", url, headers: {} };
}

export type LocalGrantCheck = { ok: true; grant: LocalGrant } | { ok: false; reason: "invalid" | "expired" };

/** Checks a local signed URL's token (`payload.signature`): authentic, unexpired, for this method. */
export async function verifyLocalGrant(env: Env, token: string, method: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<LocalGrantCheck> {
  const [payload, signature] = token.split(".");
  if (!payload || !signature) return { ok: false, reason: "invalid" };
  const expected = await hmacSha256Hex(localSigningKey(env), payload);
  if (!(await timingSafeEqualStrings(signature, expected))) return { ok: false, reason: "invalid" };
  const grant = readLocalGrant(payload);
  if (grant === null) return { ok: false, reason: "invalid" };
  if (grant.m !== method) return { ok: false, reason: "invalid" };
  if (grant.e < nowSeconds) return { ok: false, reason: "expired" };
  return { ok: true, grant };
}
