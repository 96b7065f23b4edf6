import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { hex, namedBy } from "../timestamp-check.ts";
import { subjectText } from "../trust-anchors.ts";
import { SEALED_REVOCATION_FILES_OID } from "../revocation-data.ts";

const SIGNED_DATA_OID = "1.2.840.113549.1.7.2";
const DATA_OID = "1.2.840.113549.1.7.1";
const CONTENT_TYPE_OID = "1.2.840.113549.1.9.3";
const MESSAGE_DIGEST_OID = "1.2.840.113549.1.9.4";
const SIGNING_TIME_OID = "1.2.840.113549.1.9.5";
const SIGNING_CERTIFICATE_V2_OID = "1.2.840.113549.1.9.16.2.47";
const EXTENDED_KEY_USAGE_OID = "2.5.29.37";
const RSA_ENCRYPTION_OID = "1.2.840.113549.1.1.1";
/** id-kp-documentSigning (RFC 9336): the proof seal's certificate is for signing documents, nothing else. */
export const DOCUMENT_SIGNING_OID = "1.3.6.1.5.5.7.3.36";
const HASHES: Record<string, "SHA-256" | "SHA-384" | "SHA-512"> = {
  "2.16.840.1.101.3.4.2.1": "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};
const SHA256_OID = "2.16.840.1.101.3.4.2.1";

/** How a seal and what it signs are named in its check's sentences. */
export interface SealNames {
  seal: string;
  content: string;
}
const MANIFEST_SEAL_NAMES: SealNames = { seal: "manifest.p7s", content: "this manifest.json" };

export interface ManifestSealCheck {
  ok: boolean;
  /** Why it holds or fails, in one sentence. */
  detail: string;
  /** The root the seal's certificate chained to at `at`, when it did. */
  root: Uint8Array | null;
  /** The seal's certificate, when the CMS names one it carries. */
  seal: { signer_subject: string; signer_not_after: string; signing_time: string | null } | null;
  /** The seal's certificate (DER) when the seal holds: its revocation is checked at gen_time too. */
  certificate: Uint8Array | null;
  /**
   * When the seal holds: the revocation files it lists, package name to SHA-256 (lower-case hex), or null for a
   * seal made before it listed them (docs/adr/0049). A list that cannot be read fails the seal.
   */
  revocationFiles: ReadonlyMap<string, string> | null;
}

const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;
const selfSigned = (cert: pkijs.Certificate) => cert.subject.isEqual(cert.issuer);

/** The single value of a signed attribute; undefined when absent or not single-valued. */
function attributeValue(signerInfo: pkijs.SignerInfo, type: string): unknown {
  const found = signerInfo.signedAttrs?.attributes.filter((attribute) => attribute.type === type) ?? [];
  return found.length === 1 && found[0]!.values.length === 1 ? found[0]!.values[0] : undefined;
}

/** ESS signingCertificateV2 (RFC 5035): its first ESSCertIDv2 must hash to the signer's certificate. */
async function bindsSigner(signerInfo: pkijs.SignerInfo, signerDer: Uint8Array): Promise<boolean> {
  const value = attributeValue(signerInfo, SIGNING_CERTIFICATE_V2_OID) as asn1js.Sequence | undefined;
  const certs = value?.valueBlock.value[0] as asn1js.Sequence | undefined;
  const first = certs?.valueBlock.value[0] as asn1js.Sequence | undefined;
  if (!first) return false;
  const parts = first.valueBlock.value;
  const algorithm = parts[0] instanceof asn1js.Sequence ? new pkijs.AlgorithmIdentifier({ schema: parts[0] }).algorithmId : SHA256_OID;
  const certHash = parts.find((part): part is asn1js.OctetString => part instanceof asn1js.OctetString);
  const hash = HASHES[algorithm];
  if (!certHash || !hash) return false;
  return hex(certHash.valueBlock.valueHexView) === hex(await crypto.subtle.digest(hash, buffer(signerDer)));
}

/**
 * The sealed revocation files attribute's type as pkijs reads it from a CMS: asn1js writes an arc beyond 2^53 (a
 * UUID's) correctly, but reads it back as `{hex}`, so the type is compared in that form.
 */
const SEALED_REVOCATION_FILES_TYPE = (
  asn1js.fromBER(new asn1js.ObjectIdentifier({ value: SEALED_REVOCATION_FILES_OID }).toBER()).result as asn1js.ObjectIdentifier
).valueBlock.toString();

/** The sealed revocation files attribute read: name to SHA-256; null when absent; "unreadable" when malformed. */
function sealedRevocationFiles(signerInfo: pkijs.SignerInfo): Map<string, string> | null | "unreadable" {
  const found = signerInfo.signedAttrs?.attributes.filter((attribute) => attribute.type === SEALED_REVOCATION_FILES_TYPE) ?? [];
  if (found.length === 0) return null;
  const value = attributeValue(signerInfo, SEALED_REVOCATION_FILES_TYPE);
  if (!(value instanceof asn1js.Sequence)) return "unreadable";
  const files = new Map<string, string>();
  for (const item of value.valueBlock.value) {
    const [name, digest] = item instanceof asn1js.Sequence ? item.valueBlock.value : [];
    if (!(name instanceof asn1js.Utf8String) || !(digest instanceof asn1js.OctetString) || digest.valueBlock.valueHexView.length !== 32) return "unreadable";
    if (files.has(name.valueBlock.value)) return "unreadable";
    files.set(name.valueBlock.value, hex(digest.valueBlock.valueHexView));
  }
  return files;
}

function signingTime(signerInfo: pkijs.SignerInfo): string | null {
  const value = attributeValue(signerInfo, SIGNING_TIME_OID);
  return value instanceof asn1js.UTCTime || value instanceof asn1js.GeneralizedTime ? value.toDate().toISOString() : null;
}

function certifiedForDocumentSigning(certificate: pkijs.Certificate): boolean {
  const usage = certificate.extensions?.find((extension) => extension.extnID === EXTENDED_KEY_USAGE_OID)?.parsedValue as pkijs.ExtKeyUsage | undefined;
  return usage?.keyPurposes.includes(DOCUMENT_SIGNING_OID) ?? false;
}

/**
 * Checks manifest.p7s, the proof seal: a detached CMS SignedData over exactly manifest.json (CAdES-B: signed
 * content type id-data, message digest, ESS signingCertificateV2 naming the seal's certificate), whose
 * signature verifies, made by a certificate for document signing that chains to one of `anchors` at `at`
 * (the token's gen_time: the token proves the sealed manifest existed then). What `openssl cms -verify
 * -binary -content manifest.json -CAfile <root> -purpose any` checks, with the chain judged at gen_time.
 */
export async function checkManifestSeal(
  p7s: Uint8Array,
  manifest: Uint8Array,
  anchors: Uint8Array[],
  at: Date | null,
  names: SealNames = MANIFEST_SEAL_NAMES,
): Promise<ManifestSealCheck> {
  const { seal: sealName, content: contentName } = names;
  const result: ManifestSealCheck = { ok: false, detail: "", root: null, seal: null, certificate: null, revocationFiles: null };
  const fail = (detail: string) => Object.assign(result, { detail });
  let signedData: pkijs.SignedData;
  try {
    const info = pkijs.ContentInfo.fromBER(buffer(p7s));
    if (info.contentType !== SIGNED_DATA_OID) return fail(`${sealName} is not a CMS SignedData`);
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch {
    return fail(`${sealName} is not a CMS SignedData`);
  }
  if (signedData.encapContentInfo.eContentType !== DATA_OID || signedData.encapContentInfo.eContent)
    return fail(`${sealName} is not a detached signature over data (its content must be ${contentName}, outside it)`);
  if (signedData.signerInfos.length !== 1) return fail(`${sealName} holds ${signedData.signerInfos.length} signatures, not one`);
  const signerInfo = signedData.signerInfos[0]!;
  const carried = (signedData.certificates ?? []).filter((cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate);
  const signer = namedBy(signerInfo, carried);
  if (!signer) return fail(`${sealName} does not carry the certificate that signed it`);
  const signerDer = new Uint8Array(signer.toSchema().toBER());
  result.seal = { signer_subject: subjectText(signer), signer_not_after: signer.notAfter.value.toISOString(), signing_time: signingTime(signerInfo) };

  const contentType = attributeValue(signerInfo, CONTENT_TYPE_OID);
  if (!(contentType instanceof asn1js.ObjectIdentifier && contentType.valueBlock.toString() === DATA_OID))
    return fail(`${sealName}'s signed content type is not id-data`);
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  const digest = attributeValue(signerInfo, MESSAGE_DIGEST_OID);
  if (!hash || !(digest instanceof asn1js.OctetString)) return fail(`${sealName} has no SHA-2 message digest among its signed attributes`);
  if (hex(digest.valueBlock.valueHexView) !== hex(await crypto.subtle.digest(hash, buffer(manifest))))
    return fail(`${sealName} was not made over ${contentName} (the signed message digest differs)`);
  if (!(await bindsSigner(signerInfo, signerDer))) return fail(`${sealName}'s ESS signingCertificateV2 attribute does not name the certificate that signed it`);
  const engine = pkijs.getCrypto(true);
  const signatureValid = await (signerInfo.signatureAlgorithm.algorithmId === RSA_ENCRYPTION_OID
    ? engine.verifyWithPublicKey(signerInfo.signedAttrs!.encodedValue, signerInfo.signature, signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm, hash)
    : engine.verifyWithPublicKey(signerInfo.signedAttrs!.encodedValue, signerInfo.signature, signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm)
  ).catch(() => false);
  if (!signatureValid) return fail(`${sealName}'s signature does not verify with its certificate`);
  const revocationFiles = sealedRevocationFiles(signerInfo);
  if (revocationFiles === "unreadable") return fail(`${sealName}'s list of the revocation files it seals cannot be read`);
  if (!certifiedForDocumentSigning(signer)) return fail(`the seal's certificate (${result.seal.signer_subject}) is not certified for document signing`);
  if (at === null) return fail("no trusted time (the token's gen_time) to judge the seal's certificate at");
  const trusted = anchors.map((der) => pkijs.Certificate.fromBER(buffer(der))).filter(selfSigned);
  if (trusted.length === 0) return fail("no service root to check the seal's certificate against");
  const chain = await new pkijs.CertificateChainValidationEngine({
    trustedCerts: trusted,
    certs: [...carried.filter((cert) => cert !== signer && !selfSigned(cert)), signer],
    checkDate: at,
  })
    .verify()
    .catch(() => null);
  const root = chain?.result === true ? chain.certificatePath?.at(-1) : undefined;
  if (!root) return fail(`the seal's certificate (${result.seal.signer_subject}) does not chain to the service root at gen_time ${at.toISOString()}`);
  result.root = new Uint8Array(root.toSchema().toBER());
  result.certificate = signerDer;
  result.revocationFiles = revocationFiles;
  result.ok = true;
  result.detail = `${sealName} seals ${contentName}: signed by ${result.seal.signer_subject}, valid at gen_time ${at.toISOString()} under the service root`;
  return result;
}
