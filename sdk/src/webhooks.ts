import { WebhookVerificationError } from "./errors.ts";
import type { WebhookEvent } from "./types.ts";

export interface VerifyOptions {
  /** Largest accepted distance between the header's `t` and now, in seconds (default 300, the specification's). */
  toleranceSeconds?: number;
  /** The current time (a Date or milliseconds since the epoch); defaults to `Date.now()`. */
  now?: Date | number;
}

const encoder = new TextEncoder();

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** HMAC-SHA256, lower-case hex, of `<t>.<raw body>` keyed with the whole secret (`whsec_` included). */
async function signature(secret: string, timestamp: string, body: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return hex(await crypto.subtle.sign("HMAC", key, message));
}

/** Equal strings, in a time that depends on their length only, not on where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index % Math.max(b.length, 1));
  return difference === 0;
}

/**
 * Verifies a delivery as the specification says, and returns its event, typed by `event`. Accepts it when one
 * of the header's `v1` values (every one is compared, in constant time) equals the signature of `<t>.<raw
 * body>` under one of the secrets, and `t` is within `toleranceSeconds` of now. Give both secrets during a
 * rotation; once the old one has expired, deliveries carry the new one's signature only.
 *
 * `rawBody` must be the bytes as received: a body parsed and serialised again no longer matches.
 * Throws a `WebhookVerificationError` whose `reason` says why a delivery was refused.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  header: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  if (!header) throw new WebhookVerificationError("missing_header", "No X-Signature header");
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((value) => typeof value !== "string" || value === "")) throw new TypeError("Give the endpoint's secret (whsec_…)");
  const pairs = header.split(",").map((part) => {
    const at = part.indexOf("=");
    return at < 0 ? ["", ""] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  });
  const timestamps = pairs.filter(([name]) => name === "t").map(([, value]) => value!);
  if (timestamps.length !== 1 || !/^\d{1,12}$/.test(timestamps[0]!)) throw new WebhookVerificationError("missing_timestamp", "X-Signature has no valid t=");
  const timestamp = timestamps[0]!;
  const given = pairs.filter(([name]) => name === "v1").map(([, value]) => value!);
  if (given.length === 0) throw new WebhookVerificationError("no_signatures", "X-Signature has no v1= signature");

  const body = bytesOf(rawBody);
  const expected = await Promise.all(secrets.map((value) => signature(value, timestamp, body)));
  let matched = false;
  for (const candidate of expected) for (const value of given) matched = constantTimeEqual(value, candidate) || matched;
  if (!matched) throw new WebhookVerificationError("signature_mismatch", "No v1 signature matches the secret(s) given");

  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now === undefined ? Date.now() : typeof options.now === "number" ? options.now : options.now.getTime();
  if (Math.abs(now / 1000 - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError("timestamp_outside_tolerance", `t=${timestamp} is more than ${tolerance} s from now: refused as a possible replay`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("invalid_json", "The signed body is not JSON");
  }
}

/**
 * An `X-Signature` header as the service would send it, for testing a receiver: one `v1` per secret given.
 * `timestamp` in Unix seconds defaults to now.
 */
export async function signWebhook(rawBody: string | Uint8Array | ArrayBuffer, secret: string | readonly string[], timestamp?: number): Promise<string> {
  const t = String(timestamp ?? Math.floor(Date.now() / 1000));
  const secrets = typeof secret === "string" ? [secret] : secret;
  const signatures = await Promise.all(secrets.map((value) => signature(value, t, bytesOf(rawBody))));
  return [`t=${t}`, ...signatures.map((value) => `v1=${value}`)].join(",");
}

/** `webhooks.verify` and `webhooks.sign`, also reachable as `client.webhooks`. */
export const webhooks = { verify: verifyWebhook, sign: signWebhook };
