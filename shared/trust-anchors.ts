import * as pkijs from "pkijs";
import { hex, MAX_CHAIN_CERTIFICATES, pemCertificatesDer } from "./timestamp-check.ts";
import { certificatePem } from "./revocation-data.ts";

/** A root a verifier pins: its SHA-256 over the DER, in lower-case hex and as `openssl x509 -fingerprint -sha256` prints it. */
export interface RootFingerprint {
  subject: string;
  sha256: string;
  /** `AA:BB:…`, what `openssl x509 -noout -fingerprint -sha256` prints after `sha256 Fingerprint=`. */
  opensslFingerprint: string;
  pem: string;
}

const NAMES: Record<string, string> = { "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.10": "O", "2.5.4.11": "OU" };

/** A distinguished name in one line (`C=FR, O=…, CN=…`). */
export const nameText = (name: pkijs.RelativeDistinguishedNames) =>
  name.typesAndValues.map((tv) => `${NAMES[tv.type] ?? tv.type}=${tv.value.valueBlock.value}`).join(", ");

/** A certificate's subject in one line. */
export const subjectText = (cert: pkijs.Certificate) => nameText(cert.subject);

function parsedCertificate(der: Uint8Array): pkijs.Certificate | null {
  try {
    return pkijs.Certificate.fromBER(der.slice().buffer as ArrayBuffer);
  } catch {
    return null;
  }
}

export const opensslFingerprint = (sha256: string) => sha256.toUpperCase().match(/../g)!.join(":");

/**
 * The self-signed certificates of a PEM bundle (the roots: intermediates and signers are never anchors)
 * with their fingerprints. Shared by the Worker (VERIFY.md, the public list of roots) and the offline verifier.
 * A block that is no certificate is no root (forger session 7, G10): a junk c2pa-trust-anchor.pem gives none, and the
 * checks needing an anchor fail, never a throw; so does one of more certificates than a chain holds (G15), unparsed.
 */
export async function rootFingerprints(pem: string): Promise<RootFingerprint[]> {
  const roots: RootFingerprint[] = [];
  for (const der of pemCertificatesDer(pem, MAX_CHAIN_CERTIFICATES)) {
    const cert = parsedCertificate(der);
    if (cert === null || !cert.subject.isEqual(cert.issuer)) continue;
    const sha256 = hex(await crypto.subtle.digest("SHA-256", der.slice()));
    const subject = subjectText(cert);
    roots.push({ subject, sha256, opensslFingerprint: opensslFingerprint(sha256), pem: certificatePem(btoa(String.fromCharCode(...der))) });
  }
  return roots;
}
