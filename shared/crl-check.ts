import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/** What a CRL says about one certificate, checked against the certificate that should have issued it. */
export interface CrlInspection {
  /** The CRL is signed by `issuer`'s key and names `issuer`'s subject as its issuer. */
  signedByIssuer: boolean;
  thisUpdate: string | null;
  nextUpdate: string | null;
  /** The certificate's entry in the CRL; null: not listed. */
  revoked: { revokedAt: string; invalidSince: string | null; reason: string | null } | null;
}

const CRL_DISTRIBUTION_POINTS_OID = "2.5.29.31";
const INVALIDITY_DATE_OID = "2.5.29.24";
const REASON_CODE_OID = "2.5.29.21";
const REASONS = [
  "unspecified",
  "keyCompromise",
  "cACompromise",
  "affiliationChanged",
  "superseded",
  "cessationOfOperation",
  "certificateHold",
  "",
  "removeFromCRL",
  "privilegeWithdrawn",
  "aACompromise",
];
const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;

export const parseCertificate = (der: Uint8Array) => pkijs.Certificate.fromBER(buffer(der));

/** The http(s) URLs of a certificate's CRL distribution points, in its order (LDAP and other forms are skipped). */
export function crlDistributionUrls(certificateDer: Uint8Array): string[] {
  const extension = parseCertificate(certificateDer).extensions?.find((one) => one.extnID === CRL_DISTRIBUTION_POINTS_OID);
  const points = (extension?.parsedValue as pkijs.CRLDistributionPoints | undefined)?.distributionPoints ?? [];
  return points
    .flatMap((point) => (Array.isArray(point.distributionPoint) ? point.distributionPoint : []))
    .filter((name) => name.type === 6 && typeof name.value === "string" && /^https?:\/\//i.test(name.value))
    .map((name) => name.value as string);
}

/** The serial number in upper-case hex without leading zero bytes, as `openssl crl -text` lists it. */
export function serialHex(certificate: pkijs.Certificate): string {
  let bytes = certificate.serialNumber.valueBlock.valueHexView;
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1);
  return [...bytes]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

/**
 * Reads a DER CRL about `certificateDer`, trusting nothing in it: its signature is checked with the key of
 * `issuerDer` (the certificate that issued `certificateDer`), and the certificate's entry, if any, is
 * returned with its revocation date, the invalidity date (since when the key is known or suspected to be
 * compromised) and the reason. Throws when the bytes are not a CRL.
 */
export async function inspectCrl(crlDer: Uint8Array, certificateDer: Uint8Array, issuerDer: Uint8Array): Promise<CrlInspection> {
  const crl = pkijs.CertificateRevocationList.fromBER(buffer(crlDer));
  const certificate = parseCertificate(certificateDer);
  const issuer = parseCertificate(issuerDer);
  const signedByIssuer =
    crl.issuer.isEqual(issuer.subject) && certificate.issuer.isEqual(issuer.subject) && (await crl.verify({ issuerCertificate: issuer }).catch(() => false));
  const entry = (crl.revokedCertificates ?? []).find((one) => one.userCertificate.isEqual(certificate.serialNumber));
  const extension = (oid: string) => entry?.crlEntryExtensions?.extensions.find((one) => one.extnID === oid);
  const invalidity = extension(INVALIDITY_DATE_OID);
  const reason = extension(REASON_CODE_OID);
  return {
    signedByIssuer,
    thisUpdate: crl.thisUpdate.value.toISOString(),
    nextUpdate: crl.nextUpdate?.value.toISOString() ?? null,
    revoked: entry
      ? {
          revokedAt: entry.revocationDate.value.toISOString(),
          invalidSince: invalidity
            ? (asn1js.fromBER(invalidity.extnValue.valueBlock.valueHexView).result as asn1js.GeneralizedTime).toDate().toISOString()
            : null,
          reason: reason
            ? (REASONS[(asn1js.fromBER(reason.extnValue.valueBlock.valueHexView).result as asn1js.Enumerated).valueBlock.valueDec] ?? "unknown")
            : null,
        }
      : null,
  };
}
