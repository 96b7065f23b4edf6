import * as pkijs from "pkijs";
import { nameText, subjectText } from "../../shared/trust-anchors.ts";
import { hex } from "../../shared/timestamp-check.ts";
import { certificatePem } from "../../shared/revocation-data.ts";

/** The certificate that signed a proof's manifest.p7s, as the proof and GET /v1/public/trust-anchors name it. */
export interface SealCertificate {
  sha256: string;
  subject: string;
  issuer: string;
  /** Serial number in lower-case hex. */
  serial: string;
  notBefore: string;
  notAfter: string;
  pem: string;
}

/**
 * The signer's certificate of a manifest.p7s the sealer answered: the one of its `certificates` whose issuer
 * and serial the SignerInfo names. Throws when the seal cannot be read or names no certificate it carries
 * (a sealer fault: the proof is not sealed with it, the run is retried).
 */
export async function sealCertificate(p7s: Uint8Array): Promise<SealCertificate> {
  const contentInfo = pkijs.ContentInfo.fromBER(p7s.slice().buffer as ArrayBuffer);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  const sid = signedData.signerInfos[0]?.sid;
  if (!(sid instanceof pkijs.IssuerAndSerialNumber)) throw new Error("manifest.p7s names its signer by no issuer and serial");
  const certificate = (signedData.certificates ?? []).find(
    (one): one is pkijs.Certificate => one instanceof pkijs.Certificate && one.issuer.isEqual(sid.issuer) && one.serialNumber.isEqual(sid.serialNumber),
  );
  if (certificate === undefined) throw new Error("manifest.p7s does not carry its signer's certificate");
  const der = new Uint8Array(certificate.toSchema().toBER());
  return {
    sha256: hex(await crypto.subtle.digest("SHA-256", der)),
    subject: subjectText(certificate),
    issuer: nameText(certificate.issuer),
    serial: hex(certificate.serialNumber.valueBlock.valueHexView),
    notBefore: certificate.notBefore.value.toISOString(),
    notAfter: certificate.notAfter.value.toISOString(),
    pem: certificatePem(btoa(String.fromCharCode(...der))),
  };
}
