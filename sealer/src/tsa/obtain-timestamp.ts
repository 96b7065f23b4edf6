import { createHash, createPublicKey, type KeyObject, randomBytes, verify } from "node:crypto";
import { boundedCache } from "../../../shared/bounded-cache.ts";
import { type CheckPrimitives, checkTimestamp, hex, pemCertificatesDer, TimestampCheckReuse } from "../../../shared/timestamp-check.ts";
import { TimestampUnavailableError, type TimestampAuthority } from "./authority.ts";
import { integer, objectIdentifier, octetString, sequence, smallInteger } from "./der.ts";

export interface CheckedTimestamp {
  /** The whole TimeStampResp, as `openssl ts -verify -in` expects it. */
  response: Uint8Array;
  /** The TimeStampToken alone (for C2PA's sigTst2). */
  token: Uint8Array;
  genTime: string;
  serial: string;
  policy: string;
  authority: string;
  qualified: boolean;
  /** The authority's signing certificate (DER): its revocation status is captured at sealing. */
  signerCertificate: Uint8Array;
  /** When the authority's signing certificate expires (an archive timestamp is renewed before it). */
  signerNotAfter: string;
  /** The certificates the token carries (DER), as the check read them: with the authority's chain, the signer's path. */
  certificates: Uint8Array[];
}

const HASH_OIDS = { "SHA-256": "2.16.840.1.101.3.4.2.1", "SHA-384": "2.16.840.1.101.3.4.2.2", "SHA-512": "2.16.840.1.101.3.4.2.3" } as const;
export type ImprintHash = keyof typeof HASH_OIDS;

const NODE_HASHES: Record<string, string> = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
/** The authorities' signing keys, by SubjectPublicKeyInfo: a handful per process (64 kept), for its life. */
const publicKeys = boundedCache<string, KeyObject>({ maxEntries: 64 });

/**
 * node:crypto's digest and verification, synchronous: WebCrypto's run on libuv's thread pool, where they
 * waited behind the thumbnails being made, 4 times a token, while a signing thread waited for it.
 */
const nodePrimitives = {
  digest: (hash: string, data: Uint8Array) => new Uint8Array(createHash(NODE_HASHES[hash]!).update(data).digest()),
  verifyEcdsa(spki: Uint8Array, hash: string, signature: Uint8Array, data: Uint8Array) {
    const key = publicKeys.getOrSet(hex(spki), () => createPublicKey({ key: Buffer.from(spki), format: "der", type: "spki" }));
    return key.asymmetricKeyType === "ec" && verify(NODE_HASHES[hash]!, data, { key, dsaEncoding: "ieee-p1363" }, signature);
  },
} satisfies CheckPrimitives;

/** The authorities' chains parsed and found trusted once for the process, not again for each of a proof's 11 tokens. */
const checkReuse = new TimestampCheckReuse(nodePrimitives);

/** An RFC 3161 TimeStampReq over a digest, with a random 62-bit nonce and `certReq`, written as DER directly (der.ts). */
function timeStampRequest(hash: ImprintHash, digest: Uint8Array): { der: Uint8Array; nonce: Uint8Array } {
  const nonce = randomBytes(8);
  // 0x40..0x7f in the first byte: a positive INTEGER in minimal DER, 8 bytes long.
  nonce[0] = (nonce[0]! & 0x3f) | 0x40;
  const messageImprint = sequence(sequence(objectIdentifier(HASH_OIDS[hash])), octetString(digest));
  const certReq = new Uint8Array([0x01, 0x01, 0xff]);
  return { der: sequence(smallInteger(1), messageImprint, integer(nonce), certReq), nonce: new Uint8Array(nonce) };
}

/**
 * Requests a timestamp over `data` (the authority sees only its SHA-256) and checks the answer before
 * anyone relies on it, with the same inspection public verification runs: granted, the same imprint and
 * nonce, a valid CMS signature, a signer whose certificate carries the critical `timeStamping` usage alone
 * and is the one the ESS signing-certificate attribute names, and a chain to the authority's roots. Done
 * in process (no openssl round trip per file); the proof's own token is also confirmed by
 * `openssl ts -verify` (`confirmWithOpenssl`).
 */
export async function obtainTimestamp(authority: TimestampAuthority, data: Uint8Array, signal?: AbortSignal): Promise<CheckedTimestamp> {
  return obtainTimestampOfDigest(authority, "SHA-256", nodePrimitives.digest("SHA-256", data), signal);
}

/** The same over a value already hashed: an RFC 4998 hash tree's root is the imprint itself. */
export async function obtainTimestampOfDigest(
  authority: TimestampAuthority,
  hash: ImprintHash,
  digest: Uint8Array,
  signal?: AbortSignal,
): Promise<CheckedTimestamp> {
  const request = timeStampRequest(hash, digest);
  const response = await authority.respond(request.der, signal);
  const check = await checkTimestamp(response, new Uint8Array(), authority.chainPem, { imprint: digest, reuse: checkReuse });
  const refusal = [
    [!check.granted, "not granted"],
    [!check.imprintMatches, "message imprint differs from the request"],
    [check.nonceHex !== hex(request.nonce), "nonce differs from the request"],
    [!check.signatureValid, "signature invalid"],
    [!check.signerCertifiedForTimestamping, "the signer is not certified for timestamping only"],
    [!check.signerCertificateBound, "no signing-certificate attribute naming the signer"],
    [!check.chainTrusted, "the signer does not chain to the authority's roots"],
  ].find(([failed]) => failed);
  if (refusal) throw new TimestampUnavailableError(`timestamp response refused: ${refusal[1]}`);
  const signer = hex(check.signerCertificate!);
  return {
    response,
    token: check.token!,
    genTime: check.genTime!,
    serial: check.serial!,
    policy: check.policy!,
    authority: authority.name,
    // Only an authority configured with qualified certificates can yield a qualified token.
    qualified: pemCertificatesDer(authority.qualifiedCertsPem).some((der) => hex(der) === signer),
    signerCertificate: check.signerCertificate!,
    signerNotAfter: check.signerNotAfter!,
    certificates: check.certificates,
  };
}
