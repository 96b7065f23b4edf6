import * as pkijs from "pkijs";
import { crlDistributionUrls, inspectCrl, parseCertificate, serialHex } from "../../../shared/crl-check.ts";
import type { RevocationChain, RevocationEntry } from "../../../shared/revocation-data.ts";
import { subjectText } from "../../../shared/trust-anchors.ts";
import { TransientJobError } from "../transfer.ts";
import type { CrlSource } from "./crl-source.ts";

/**
 * A certificate the sealer was about to rely on is revoked: nothing is sealed with it. The proof waits
 * (the Worker retries) until the operator replaces the key or the authority, and the logs name it.
 */
export class CertificateRevokedError extends TransientJobError {}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const selfSigned = (cert: pkijs.Certificate) => cert.subject.isEqual(cert.issuer);

/** The certificates from `leaf` up to, not including, its root, each followed by its issuer when `pool` has it. */
function pathBelowRoot(leaf: Uint8Array, pool: Uint8Array[]): { der: Uint8Array; issuer: Uint8Array | null }[] {
  const path: { der: Uint8Array; issuer: Uint8Array | null }[] = [];
  let current = leaf;
  while (path.length < 8) {
    const cert = parseCertificate(current);
    if (selfSigned(cert)) break;
    const issuer = pool.find((candidate) => parseCertificate(candidate).subject.isEqual(cert.issuer)) ?? null;
    path.push({ der: current, issuer });
    if (issuer === null) break;
    current = issuer;
  }
  return path;
}

/** The certificates an RFC 3161 token carries (the signer's, sometimes its intermediates). */
export function tokenCertificates(token: Uint8Array): Uint8Array[] {
  const content = pkijs.ContentInfo.fromBER(token.slice().buffer as ArrayBuffer);
  const signedData = new pkijs.SignedData({ schema: content.content });
  return (signedData.certificates ?? []).filter((cert) => cert instanceof pkijs.Certificate).map((cert) => new Uint8Array(cert.toSchema().toBER()));
}

/**
 * Captures the revocation status of a chain at sealing: for the signing certificate `leaf` and each
 * intermediate above it (found in `pool`, which also holds the root), the CRL its issuer publishes at the
 * distribution point the certificate names, with its signature checked against that issuer. A certificate
 * whose CRL cannot be had is recorded `unavailable` with the reason, never as if it held
 * (docs/adr/0022); a certificate the CRL lists as revoked stops the seal (CertificateRevokedError).
 */
export async function captureRevocation(source: CrlSource, chain: RevocationChain, leaf: Uint8Array, pool: Uint8Array[], signal?: AbortSignal): Promise<RevocationEntry[]> {
  const now = new Date();
  return Promise.all(
    pathBelowRoot(leaf, pool).map(async ({ der, issuer }, index): Promise<RevocationEntry> => {
      const cert = parseCertificate(der);
      const facts = { chain, position: index + 1, subject: subjectText(cert), serial: serialHex(cert), certificate_base64: base64(der) };
      const unavailable = (source: string | null, reason: string): RevocationEntry => ({
        ...facts,
        status: "unavailable",
        source,
        captured_at: new Date().toISOString(),
        this_update: null,
        next_update: null,
        crl_base64: null,
        reason,
      });
      const url = crlDistributionUrls(der)[0] ?? null;
      if (url === null) return unavailable(null, "the certificate names no http CRL distribution point");
      if (issuer === null) return unavailable(url, "the certificate's issuer is not in the chain, so its CRL cannot be checked");
      let fetched: Awaited<ReturnType<CrlSource["fetch"]>>;
      try {
        fetched = await source.fetch(url, signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        return unavailable(url, (error as Error).message);
      }
      let crl: Awaited<ReturnType<typeof inspectCrl>>;
      try {
        crl = await inspectCrl(fetched.der, der, issuer);
      } catch (error) {
        return unavailable(url, `the CRL found there cannot be read: ${(error as Error).message}`);
      }
      if (!crl.signedByIssuer) return unavailable(url, "the CRL found there is not signed by the certificate's issuer");
      if (crl.revoked) throw new CertificateRevokedError(`the ${chain} certificate ${facts.subject} (serial ${facts.serial}) is revoked since ${crl.revoked.revokedAt} (${crl.revoked.reason ?? "no reason given"}) according to ${url}`);
      if (crl.nextUpdate !== null && Date.parse(crl.nextUpdate) < now.getTime()) return unavailable(url, `the CRL published there is out of date (nextUpdate ${crl.nextUpdate})`);
      return { ...facts, status: "captured", source: url, captured_at: fetched.fetchedAt, this_update: crl.thisUpdate, next_update: crl.nextUpdate, crl_base64: base64(fetched.der), reason: null };
    }),
  );
}
