/**
 * The local stand-in for R2's presigned URLs (development and tests): a grant, base64url JSON, and its
 * HMAC-SHA-256 under the Worker's UPLOAD_URL_SIGNING_KEY, as `/u/{payload}.{hex signature}` on the capture
 * host. The Worker signs and checks them (src/storage/objects/signed-urls.ts); `npm run bench` signs them too, to
 * run a sealer job against a local stack's storage exactly as the Worker would hand it over.
 */
import { hmacSha256Hex } from "./hmac-sha256.ts";

export interface LocalGrant {
  m: "PUT" | "GET" | "DELETE";
  k: string;
  s?: string;
  n?: number;
  c?: string;
  f?: string;
  /** Multipart: upload id and part number. */
  u?: string;
  p?: number;
  e: number;
}

const toBase64Url = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => atob(text.replaceAll("-", "+").replaceAll("_", "/"));

export async function localGrantUrl(baseUrl: string, signingKey: string, grant: LocalGrant): Promise<string> {
  const payload = toBase64Url(JSON.stringify(grant));
  return `${baseUrl.replace(/\/$/, "")}/u/${payload}.${await hmacSha256Hex(signingKey, payload)}`;
}

/** The grant a token's payload carries, or null when it is not one (the signature is checked apart). */
export function readLocalGrant(payload: string): LocalGrant | null {
  try {
    return JSON.parse(fromBase64Url(payload)) as LocalGrant;
  } catch {
    return null;
  }
}
