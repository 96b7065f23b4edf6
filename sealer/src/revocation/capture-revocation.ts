import type * as pkijs from "pkijs";
import { crlDistributionUrls, inspectCrl, parseCertificate, serialHex, type CrlInspection } from "../../../shared/crl-check.ts";
import type { RevocationChain, RevocationEntry } from "../../../shared/revocation-data.ts";
import { subjectText } from "../../../shared/trust-anchors.ts";
import { type BoundedCache, boundedCache } from "../../../shared/bounded-cache.ts";
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

const hexOf = (der: Uint8Array) => Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString("hex");

/** What the path of a chain is, and what each certificate on it says: the same for every proof it signs. */
interface PathStep {
  der: Uint8Array;
  issuer: Uint8Array | null;
  facts: { subject: string; serial: string; certificate_base64: string };
  url: string | null;
}

/** Worked out once per leaf and pool (pkijs parsing was most of a capture's 6-8 ms): 64 chains, for the process's life. */
const pathsByChain = boundedCache<string, PathStep[]>({ maxEntries: 64 });

function pathSteps(leaf: Uint8Array, pool: Uint8Array[]): PathStep[] {
  const key = [leaf, ...pool].map(hexOf).join(" ");
  return pathsByChain.getOrSet(key, () =>
    pathBelowRoot(leaf, pool).map(({ der, issuer }) => {
      const cert = parseCertificate(der);
      return {
        der,
        issuer,
        facts: { subject: subjectText(cert), serial: serialHex(cert), certificate_base64: base64(der) },
        url: crlDistributionUrls(der)[0] ?? null,
      };
    }),
  );
}

/**
 * A CRL's verdict on a certificate, kept with the CRL's bytes as the source holds them (until their
 * nextUpdate): the same bytes, certificate and issuer always give the same verdict, whose signature check
 * need not run again for each proof. Whether the CRL is out of date is still decided at each capture.
 * Kept for the process's life: the 8 CRLs read last (a few issuers'; a replaced CRL goes as newer ones come,
 * and the bound caps what their bytes hold), in each the verdicts on 16 certificates.
 */
const inspections = boundedCache<Uint8Array, BoundedCache<string, Promise<CrlInspection>>>({ maxEntries: 8 });

function inspection(crlDer: Uint8Array, certificateDer: Uint8Array, issuerDer: Uint8Array): Promise<CrlInspection> {
  const byCertificate = inspections.getOrSet(crlDer, () => boundedCache<string, Promise<CrlInspection>>({ maxEntries: 16 }));
  return byCertificate.getOrSet(`${hexOf(certificateDer)} ${hexOf(issuerDer)}`, () => inspectCrl(crlDer, certificateDer, issuerDer));
}

/**
 * Captures the revocation status of a chain at sealing: for the signing certificate `leaf` and each
 * intermediate above it (found in `pool`, which also holds the root), the CRL its issuer publishes at the
 * distribution point the certificate names, with its signature checked against that issuer. A certificate
 * whose CRL cannot be had is recorded `unavailable` with the reason, never as if it held
 * (docs/adr/0022); a certificate the CRL lists as revoked stops the seal (CertificateRevokedError).
 */
export async function captureRevocation(
  source: CrlSource,
  chain: RevocationChain,
  leaf: Uint8Array,
  pool: Uint8Array[],
  signal?: AbortSignal,
  /** What the revoked certificate is called in the error (the chain's name by default). */
  named: string = chain,
): Promise<RevocationEntry[]> {
  const now = new Date();
  return Promise.all(
    pathSteps(leaf, pool).map(async ({ der, issuer, facts: known, url }, index): Promise<RevocationEntry> => {
      const facts = { chain, position: index + 1, ...known };
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
      if (url === null) return unavailable(null, "the certificate names no http CRL distribution point");
      if (issuer === null) return unavailable(url, "the certificate's issuer is not in the chain, so its CRL cannot be checked");
      let fetched: Awaited<ReturnType<CrlSource["fetch"]>>;
      try {
        fetched = await source.fetch(url, signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        return unavailable(url, (error as Error).message);
      }
      let crl: CrlInspection;
      try {
        crl = await inspection(fetched.der, der, issuer);
      } catch (error) {
        return unavailable(url, `the CRL found there cannot be read: ${(error as Error).message}`);
      }
      if (!crl.signedByIssuer) return unavailable(url, "the CRL found there is not signed by the certificate's issuer");
      if (crl.revoked)
        throw new CertificateRevokedError(
          `the ${named} certificate ${facts.subject} (serial ${facts.serial}) is revoked since ${crl.revoked.revokedAt} (${crl.revoked.reason ?? "no reason given"}) according to ${url}`,
        );
      if (crl.nextUpdate !== null && Date.parse(crl.nextUpdate) < now.getTime())
        return unavailable(url, `the CRL published there is out of date (nextUpdate ${crl.nextUpdate})`);
      return {
        ...facts,
        status: "captured",
        source: url,
        captured_at: fetched.fetchedAt,
        this_update: crl.thisUpdate,
        next_update: crl.nextUpdate,
        crl_base64: base64(fetched.der),
        reason: null,
      };
    }),
  );
}
