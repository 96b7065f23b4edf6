import { createPrivateKey, sign as nodeSign, type KeyObject } from "node:crypto";
import { encode, Tag } from "cbor2";

export interface CoseSigner {
  key: KeyObject;
  /** End-entity certificate first, then intermediates, never the root (DER). */
  chainDer: Uint8Array[];
  /** Obtains an RFC 3161 TimeStampToken (DER) over the given bytes; null to sign without. */
  timestamp: ((message: Uint8Array) => Promise<Uint8Array>) | null;
}

export const COSE_RESERVE_SIZE = 24_000;
const ES256 = -7;
const X5CHAIN = 33;

export function loadSigningKey(pem: string): KeyObject {
  return createPrivateKey(pem);
}

/**
 * A plain Uint8Array view of the same bytes: cbor2 encodes a Node Buffer through its toJSON (a map), not as a
 * byte string, and certificates or tokens read with node:fs or node:crypto arrive as Buffers.
 */
const byteString = (bytes: Uint8Array) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The signature c2pa-rs asks for with "direct COSE handling": a tagged COSE_Sign1 of exactly
 * `reserveSize` bytes over the claim, ES256 in raw r||s form, the chain in the protected header, and
 * the timestamp token (`sigTst2`) plus zero padding in the unprotected header. Maps keep their insertion order
 * (cbor2's default, no key sorting) and integers their shortest form, the bytes c2pa-rs reads back.
 */
export async function coseSign1(signer: CoseSigner, claim: Uint8Array, reserveSize: number): Promise<Uint8Array> {
  const chain = signer.chainDer.map(byteString);
  const protectedHeader = encode(
    new Map<number, number | Uint8Array | Uint8Array[]>([
      [1, ES256],
      [X5CHAIN, chain.length === 1 ? chain[0]! : chain],
    ]),
  );
  const toBeSigned = encode(["Signature1", protectedHeader, new Uint8Array(0), byteString(claim)]);
  const signature = byteString(nodeSign("sha256", toBeSigned, { key: signer.key, dsaEncoding: "ieee-p1363" }));
  const unprotected = new Map<string, unknown>();
  if (signer.timestamp !== null) {
    const counterSigned = encode(["CounterSignature", protectedHeader, new Uint8Array(0), encode(signature)]);
    const token = byteString(await signer.timestamp(counterSigned));
    unprotected.set("sigTst2", new Map([["tstTokens", [new Map([["val", token]])]]]));
  }
  const build = (padLength: number) => encode(new Tag(18, [protectedHeader, new Map([...unprotected, ["pad", new Uint8Array(padLength)]]), null, signature]));
  let padLength = Math.max(0, reserveSize - build(0).length);
  // The pad's own length prefix grows at 24, 256 and 65536 bytes: settle on the exact size.
  for (let i = 0; i < 4; i++) {
    const size = build(padLength).length;
    if (size === reserveSize) return build(padLength);
    padLength += reserveSize - size;
    if (padLength < 0) break;
  }
  throw new Error(`COSE signature cannot fit in ${reserveSize} bytes`);
}
