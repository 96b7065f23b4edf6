import { createHash, createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";

/**
 * The proof seal's identity of one mode (docs/adr/0027): its private key, its certificate and the
 * intermediates up to (not including) the service root, which verifiers obtain outside the package.
 */
export interface SealIdentity {
  key: KeyObject;
  /** The sealing certificate, DER. */
  certificateDer: Uint8Array;
  /** Intermediates between the sealing certificate and the root, DER, nearest first (none for the local PKI). */
  intermediatesDer: Uint8Array[];
}

/**
 * A sealing identity from a PKCS#8 PEM key and its chain (the sealing certificate first). Refused when the
 * chain is empty or the key is not the certificate's: a seal nobody can verify would be made on every proof.
 */
export function sealIdentity(keyPem: string, chainDer: Uint8Array[]): SealIdentity {
  const [certificateDer, ...intermediatesDer] = chainDer;
  if (certificateDer === undefined) throw new Error("the proof seal's chain holds no certificate");
  const key = createPrivateKey(keyPem);
  const certificate = new X509Certificate(certificateDer);
  if (!certificate.checkPrivateKey(key)) throw new Error(`the proof seal's key is not the key of its certificate (${certificate.subject})`);
  return { key, certificateDer, intermediatesDer };
}

/** SHA-256 of the sealing certificate's DER, lower-case hex: what ESS signingCertificateV2 and the trust-anchors route name. */
export const certificateSha256 = (der: Uint8Array) => createHash("sha256").update(der).digest("hex");
