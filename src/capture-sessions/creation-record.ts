import type { ApiCaller, Env } from "../env.ts";
import { type ShardCode, shardDatabase } from "../db/shards.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { RETENTION_MS } from "../durable/api-account.ts";
import { findLiveCreationIn, type LiveCreation, type SessionCreation } from "../storage/capture-sessions.ts";
import { organizationShardsNow } from "../billing/available-balance.ts";
import { presentCreatedCaptureSession } from "./present.ts";

/** The Idempotency-Key of the request creating a session and the hash of its body (src/middleware/idempotency.ts). */
export interface IdempotentRequest {
  key: string;
  requestHash: string;
}

const encoder = new TextEncoder();
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
const IV_BYTES = 12;

/** The key's scope is its account (organization and mode), as in the Durable Object (ADR 0032). */
const keyHashOf = (caller: Pick<ApiCaller, "organizationId" | "mode">, key: string) => sha256Hex(`${caller.organizationId}:${caller.mode}:${key}`);

/**
 * The AES-GCM key sealing a creation's capture token, derived from the Idempotency-Key (HKDF): D1 holds only
 * the key's hash, so the token can be read back only by a request that carries the key, as a retry does.
 */
async function tokenKey(caller: Pick<ApiCaller, "organizationId" | "mode">, key: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(key), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode(`${caller.organizationId}:${caller.mode}`), info: encoder.encode("capture-session-creation token") },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** What the session's insert records with it: the key's and the body's hashes, and the token sealed under the key. */
export async function sessionCreation(caller: ApiCaller, request: IdempotentRequest, token: string, now: Date): Promise<SessionCreation> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await tokenKey(caller, request.key), encoder.encode(token)));
  const sealedToken = new Uint8Array(IV_BYTES + sealed.length);
  sealedToken.set(iv);
  sealedToken.set(sealed, IV_BYTES);
  return { keyHash: await keyHashOf(caller, request.key), requestHash: request.requestHash, sealedToken: b64(sealedToken), liveAfter: liveAfter(now) };
}

/** Creations recorded after this instant are live: 24 hours, as long as the key's record (ADR 0032). */
const liveAfter = (now: Date) => new Date(now.getTime() - RETENTION_MS).toISOString();

/** A live creation with its token read back: what a retry with its key is answered from. */
export interface OpenedCreation {
  requestHash: string;
  session: LiveCreation["session"];
  token: string;
}

/** The creation found with this key's hash, its token read back with the key. */
export async function openedCreation(caller: ApiCaller, key: string, found: LiveCreation): Promise<OpenedCreation> {
  const sealed = unb64(found.sealedToken);
  const token = new TextDecoder().decode(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.slice(0, IV_BYTES) }, await tokenKey(caller, key), sealed.slice(IV_BYTES)),
  );
  return { requestHash: found.requestHash, session: found.session, token };
}

/**
 * The live creation made with this key in any of these shards, with its token read back; null when there is
 * none. One look-up a shard, all at once: an organization with write shards records each creation in its
 * session's shard, which a switch may have changed since the key was first sent (docs/adr/0070).
 */
export async function liveCreationIn(env: Env, caller: ApiCaller, shards: readonly ShardCode[], key: string, now: Date): Promise<OpenedCreation | null> {
  const keyHash = await keyHashOf(caller, key);
  const creation = await findLiveCreationIn(
    shards.map((shard) => shardDatabase(env, shard).$client),
    keyHash,
    liveAfter(now),
  );
  return creation === null ? null : openedCreation(caller, key, creation);
}

/**
 * `liveCreationIn` the organization's shards as its home lists them now, not as the caller's cached list (up to
 * 10 s old) remembers them: a test creation has no account object to read the list for it (forger session 9,
 * W2). The list is read with the look-up in the caller's shards, at once; only a list naming a shard the caller
 * lacks costs one round trip more, for that shard.
 */
export async function liveCreationInShardsNow(env: Env, caller: ApiCaller, key: string, now: Date): Promise<OpenedCreation | null> {
  const [{ shards }, cached] = await Promise.all([organizationShardsNow(env, caller.organizationId), liveCreationIn(env, caller, caller.shards, key, now)]);
  if (cached !== null) return cached;
  const added = shards.filter((shard) => !caller.shards.includes(shard));
  return added.length === 0 ? null : liveCreationIn(env, caller, added, key, now);
}

/** A creation's answer as first given, and the hash of the body it was made with (what the idempotency middleware replays). */
export interface RecordedCreationAnswer {
  requestHash: string;
  status: 201;
  body: string;
  headers: Record<string, string>;
}

/**
 * The answer of the live creation made with this key in any of the caller's shards, byte for byte as it was
 * first given; null when there is none.
 */
export async function recordedCreationAnswer(
  env: Env,
  caller: ApiCaller,
  key: string,
  captureBaseUrl: string,
  now: Date,
): Promise<RecordedCreationAnswer | null> {
  const found = await liveCreationIn(env, caller, caller.shards, key, now);
  if (found === null) return null;
  return {
    requestHash: found.requestHash,
    status: 201,
    body: JSON.stringify(presentCreatedCaptureSession(found, captureBaseUrl)),
    headers: { "Content-Type": "application/json" },
  };
}
