import { createPrivateKey, sign as nodeSign, type KeyObject } from "node:crypto";
import { CborMap, CborTag, encodeCbor } from "./cbor.ts";

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
 * The signature c2pa-rs asks for with "direct COSE handling": a tagged COSE_Sign1 of exactly
 * `reserveSize` bytes over the claim, ES256 in raw r||s form, the chain in the protected header, and
 * the timestamp token (`sigTst2`) plus zero padding in the unprotected header.
 */
export async function coseSign1(signer: CoseSigner, claim: Uint8Array, reserveSize: number): Promise<Uint8Array> {
  const protectedHeader = encodeCbor(
    new CborMap([
      [1, ES256],
      [X5CHAIN, signer.chainDer.length === 1 ? signer.chainDer[0]! : signer.chainDer],
    ]),
  );
  const toBeSigned = encodeCbor(["Signature1", protectedHeader, new Uint8Array(0), claim]);
  const signature = new Uint8Array(nodeSign("sha256", toBeSigned, { key: signer.key, dsaEncoding: "ieee-p1363" }));
  const unprotected: [string, CborMap | Uint8Array][] = [];
  if (signer.timestamp !== null) {
    const counterSigned = encodeCbor(["CounterSignature", protectedHeader, new Uint8Array(0), encodeCbor(signature)]);
    const token = await signer.timestamp(counterSigned);
    unprotected.push(["sigTst2", new CborMap([["tstTokens", [new CborMap([["val", token]])]]])]);
  }
  const build = (padLength: number) =>
    encodeCbor(new CborTag(18, [protectedHeader, new CborMap([...unprotected, ["pad", new Uint8Array(padLength)]]), null, signature]));
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
