import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/** What a stored or freshly received RFC 3161 response proves about some data (shared by the Worker and the sealer). */
export interface TimestampCheck {
  /** PKIStatus granted (0) or grantedWithMods (1), with a token. */
  granted: boolean;
  /** The CMS signature over the TSTInfo verifies with the signer certificate the token names. */
  signatureValid: boolean;
  /** The TSTInfo's message imprint is the SHA-256 of the data. */
  imprintMatches: boolean;
  /** The signer chains to one of the given roots at the token's `genTime`. */
  chainTrusted: boolean;
  /** The signer's certificate carries the critical `timeStamping` extended key usage alone (RFC 3161 §2.3). */
  signerCertifiedForTimestamping: boolean;
  /** The ESS signing-certificate attribute (RFC 3161 §2.4.2, RFC 5816) names the signer's certificate. */
  signerCertificateBound: boolean;
  genTime: string | null;
  /** As `openssl ts -reply -text` prints it: `0x` and upper-case hex. */
  serial: string | null;
  policy: string | null;
  /** The nonce the token echoes, in hex (null when absent). */
  nonceHex: string | null;
  /** The signer certificate's DER, to compare with configured (e.g. qualified) certificates. */
  signerCertificate: Uint8Array | null;
  /** The TimeStampToken exactly as the authority encoded it (C2PA's sigTst2 carries it). */
  token: Uint8Array | null;
}

const SHA1_OID = "1.3.14.3.2.26";
const SHA256_OID = "2.16.840.1.101.3.4.2.1";
const HASHES: Record<string, string> = { [SHA1_OID]: "SHA-1", [SHA256_OID]: "SHA-256", "2.16.840.1.101.3.4.2.2": "SHA-384", "2.16.840.1.101.3.4.2.3": "SHA-512" };
const TIME_STAMPING_OID = "1.3.6.1.5.5.7.3.8";
const EXTENDED_KEY_USAGE_OID = "2.5.29.37";
const SIGNING_CERTIFICATE_OID = "1.2.840.113549.1.9.16.2.12";
const SIGNING_CERTIFICATE_V2_OID = "1.2.840.113549.1.9.16.2.47";

export const hex = (bytes: ArrayBuffer | Uint8Array) => [...(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;

/** The DER of every certificate in a PEM bundle. */
export function pemCertificatesDer(pem: string): Uint8Array[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => Uint8Array.from(atob(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "")), (c) => c.charCodeAt(0)));
}

function serialText(serial: asn1js.Integer): string {
  let bytes = serial.valueBlock.valueHexView;
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1);
  return `0x${hex(bytes).toUpperCase()}`;
}

function certifiedForTimestamping(certificate: pkijs.Certificate): boolean {
  const usage = certificate.extensions?.find((extension) => extension.extnID === EXTENDED_KEY_USAGE_OID);
  const purposes = (usage?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  return usage?.critical === true && purposes.length === 1 && purposes[0] === TIME_STAMPING_OID;
}

/** Without this binding a signer could be swapped for another certificate holding the same key. */
async function bindsCertificate(signerInfo: pkijs.SignerInfo, certificateDer: Uint8Array): Promise<boolean> {
  const attribute = signerInfo.signedAttrs?.attributes.find((a) => a.type === SIGNING_CERTIFICATE_V2_OID || a.type === SIGNING_CERTIFICATE_OID);
  const certs = (attribute?.values[0] as asn1js.Sequence | undefined)?.valueBlock.value[0] as asn1js.Sequence | undefined;
  const first = certs?.valueBlock.value[0] as asn1js.Sequence | undefined;
  if (!attribute || !first) return false;
  const parts = first.valueBlock.value;
  const algorithm =
    attribute.type === SIGNING_CERTIFICATE_OID ? SHA1_OID : parts[0] instanceof asn1js.Sequence ? new pkijs.AlgorithmIdentifier({ schema: parts[0] }).algorithmId : SHA256_OID;
  const certHash = parts.find((part): part is asn1js.OctetString => part instanceof asn1js.OctetString);
  const hash = HASHES[algorithm];
  if (!certHash || !hash) return false;
  return hex(certHash.valueBlock.valueHexView) === hex(await crypto.subtle.digest(hash, buffer(certificateDer)));
}

/**
 * Inspects an RFC 3161 TimeStampResp against the data it should cover and the roots it should chain to,
 * without trusting anything in it: each property is reported separately, so that the sealer can refuse a
 * bad answer precisely and public verification can name the check that failed. Chains are evaluated at
 * the token's own `genTime` (a certificate that expired since does not invalidate an old proof).
 */
export async function checkTimestamp(tsr: Uint8Array, data: Uint8Array, chainPem: string): Promise<TimestampCheck> {
  const result: TimestampCheck = {
    granted: false,
    signatureValid: false,
    imprintMatches: false,
    chainTrusted: false,
    signerCertifiedForTimestamping: false,
    signerCertificateBound: false,
    genTime: null,
    serial: null,
    policy: null,
    nonceHex: null,
    signerCertificate: null,
    token: null,
  };
  try {
    const outer = asn1js.fromBER(buffer(tsr));
    const response = new pkijs.TimeStampResp({ schema: outer.result });
    const token = response.timeStampToken;
    if ((response.status.status !== 0 && response.status.status !== 1) || !token) return result;
    result.granted = true;
    result.token = new Uint8Array((outer.result as asn1js.Sequence).valueBlock.value[1]!.valueBeforeDecodeView);
    const signedData = new pkijs.SignedData({ schema: token.content });
    const content = signedData.encapContentInfo.eContent;
    if (!content) return result;
    const tstInfo = pkijs.TSTInfo.fromBER(content.getValue());
    result.genTime = tstInfo.genTime.toISOString();
    result.serial = serialText(tstInfo.serialNumber);
    result.policy = tstInfo.policy;
    result.nonceHex = tstInfo.nonce ? hex(tstInfo.nonce.valueBlock.valueHexView) : null;
    result.imprintMatches =
      tstInfo.messageImprint.hashAlgorithm.algorithmId === SHA256_OID &&
      hex(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView) === hex(await crypto.subtle.digest("SHA-256", buffer(data)));

    let signer: pkijs.Certificate | null = null;
    try {
      // For a timestamp token pkijs checks the signature and that the TSTInfo's imprint is the hash of `data`.
      const verified = (await signedData.verify({ signer: 0, data: buffer(data), checkChain: false, extendedMode: true })) as {
        signatureVerified: boolean | null;
        signerCertificate: pkijs.Certificate | null;
      };
      result.signatureValid = verified.signatureVerified === true;
      signer = verified.signerCertificate;
    } catch {
      return result;
    }
    if (signer === null) return result;
    result.signerCertificate = new Uint8Array(signer.toSchema().toBER());
    result.signerCertifiedForTimestamping = certifiedForTimestamping(signer);
    result.signerCertificateBound = await bindsCertificate(signedData.signerInfos[0]!, result.signerCertificate);
    const others = (signedData.certificates ?? []).filter((cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate && cert !== signer);
    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: pemCertificatesDer(chainPem).map((der) => pkijs.Certificate.fromBER(buffer(der))),
      // The chain is built from the last certificate: the signer's, whatever order the token lists them in.
      certs: [...others, signer],
      checkDate: tstInfo.genTime,
    });
    result.chainTrusted = (await engine.verify()).result === true;
  } catch {
    return result;
  }
  return result;
}
