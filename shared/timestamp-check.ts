import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/** What a stored or freshly received RFC 3161 response proves about some data (shared by the Worker and the sealer). */
export interface TimestampCheck {
  /** PKIStatus granted (0) or grantedWithMods (1), with a token. */
  granted: boolean;
  /** The CMS signature over the TSTInfo verifies with the signer certificate the token names. */
  signatureValid: boolean;
  /** The TSTInfo's message imprint is the hash of the data (SHA-256, -384 or -512; SHA-1 is refused). */
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
  /** The trust anchor the chain ended at (its SHA-256 is what a verifier pins), when the chain is trusted. */
  rootCertificate: Uint8Array | null;
  /** The TimeStampToken exactly as the authority encoded it (C2PA's sigTst2 carries it). */
  token: Uint8Array | null;
  /** When the signer's certificate expires (ISO), to know when a renewal is due (RFC 4998). */
  signerNotAfter: string | null;
}

/**
 * `imprint`: the value the token must cover is given already hashed (an RFC 4998 hash tree's root), so
 * `data` is ignored. `at`: evaluate the chain at this instant instead of the token's `genTime` (an archive
 * timestamp proves the token existed then: RFC 4998 §5.3).
 */
export interface TimestampCheckOptions {
  imprint?: Uint8Array;
  at?: Date;
  /** What a caller checking many tokens of the same authorities may reuse from one check to the next. */
  reuse?: TimestampCheckReuse;
}

/** Entries kept per map: a process meets a handful of authorities; anything beyond is dropped and rebuilt. */
const REUSE_LIMIT = 64;

/**
 * What checking many tokens of the same authorities can reuse (the sealer checks 11 per proof, and parsing
 * the chain file and validating the chain again cost more than the rest of a check): the chain file's
 * certificates parsed once, each signer's public key imported once, and each chain found trusted, with
 * the validity period of every certificate on it. A chain's trust depends on the token's genTime only
 * through those periods (building and checking the path does not look at dates), so a token whose genTime
 * falls outside one is validated afresh. Every token's own signature, imprint, signer and binding are
 * still checked.
 */
export class TimestampCheckReuse {
  readonly #certificates = new Map<string, pkijs.Certificate[]>();
  readonly #publicKeys = new Map<string, Promise<CryptoKey>>();
  readonly #trustedChains = new Map<string, { periods: [Date, Date][]; root: Uint8Array }>();

  readonly #parsed = new Map<string, pkijs.Certificate>();
  readonly #encoded = new WeakMap<pkijs.Certificate, Uint8Array>();

  /** A certificate a token carries, parsed once per distinct DER (pkijs's schema matching is most of a token's parse). */
  certificate(der: Uint8Array): pkijs.Certificate {
    return remembered(this.#parsed, hex(der), () => {
      const certificate = pkijs.Certificate.fromBER(buffer(der));
      this.#encoded.set(certificate, der.slice());
      return certificate;
    });
  }

  /** The DER of a certificate parsed here or from the chain file, without encoding it again. */
  encoded(certificate: pkijs.Certificate): Uint8Array {
    return this.#encoded.get(certificate) ?? new Uint8Array(certificate.toSchema().toBER());
  }

  certificates(chainPem: string): pkijs.Certificate[] {
    return remembered(this.#certificates, chainPem, () => pemCertificatesDer(chainPem).map((der) => pkijs.Certificate.fromBER(buffer(der))));
  }

  publicKey(key: string, importKey: () => Promise<CryptoKey>): Promise<CryptoKey> {
    return remembered(this.#publicKeys, key, () => {
      const imported = importKey();
      // A key that failed to import is not kept: the next check tries again.
      imported.catch(() => this.#publicKeys.delete(key));
      return imported;
    });
  }

  /** The root of a chain found trusted before, when `at` falls within every certificate's validity period on it. */
  trustedRoot(key: string, at: Date): Uint8Array | null {
    const chain = this.#trustedChains.get(key);
    return chain?.periods.every(([notBefore, notAfter]) => notBefore <= at && at <= notAfter) ? chain.root : null;
  }

  rememberTrusted(key: string, path: pkijs.Certificate[], root: Uint8Array): void {
    remembered(this.#trustedChains, key, () => ({ periods: path.map((cert) => [cert.notBefore.value, cert.notAfter.value] as [Date, Date]), root }));
  }
}

function remembered<V>(map: Map<string, V>, key: string, make: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  if (map.size >= REUSE_LIMIT) map.clear();
  const value = make();
  map.set(key, value);
  return value;
}

const SHA1_OID = "1.3.14.3.2.26";
const SHA256_OID = "2.16.840.1.101.3.4.2.1";
const HASHES: Record<string, string> = { [SHA1_OID]: "SHA-1", [SHA256_OID]: "SHA-256", "2.16.840.1.101.3.4.2.2": "SHA-384", "2.16.840.1.101.3.4.2.3": "SHA-512" };
const TIME_STAMPING_OID = "1.3.6.1.5.5.7.3.8";
const EXTENDED_KEY_USAGE_OID = "2.5.29.37";
const SIGNING_CERTIFICATE_OID = "1.2.840.113549.1.9.16.2.12";
const SIGNING_CERTIFICATE_V2_OID = "1.2.840.113549.1.9.16.2.47";
const MESSAGE_DIGEST_OID = "1.2.840.113549.1.9.4";
const SUBJECT_KEY_IDENTIFIER_OID = "2.5.29.14";
const RSA_ENCRYPTION_OID = "1.2.840.113549.1.1.1";
const EC_PUBLIC_KEY_OID = "1.2.840.10045.2.1";

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

/** The certificate a SignerInfo's `sid` names (issuer and serial number, or subject key identifier). */
function namedBy(signerInfo: pkijs.SignerInfo, candidates: pkijs.Certificate[]): pkijs.Certificate | null {
  const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber | asn1js.Constructed | asn1js.Primitive;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return candidates.find((cert) => cert.issuer.isEqual(sid.issuer) && cert.serialNumber.isEqual(sid.serialNumber)) ?? null;
  }
  const keyId = hex((sid as asn1js.Primitive).valueBlock.valueHexView);
  return (
    candidates.find((cert) => {
      const ski = cert.extensions?.find((extension) => extension.extnID === SUBJECT_KEY_IDENTIFIER_OID)?.parsedValue as asn1js.OctetString | undefined;
      return ski !== undefined && hex(ski.valueBlock.valueHexView) === keyId;
    }) ?? null
  );
}

/** CMS signature over the signed attributes, whose message-digest attribute must be the hash of the TSTInfo. */
async function signatureVerifies(signerInfo: pkijs.SignerInfo, signer: pkijs.Certificate, signerHex: string, tstInfoDer: Uint8Array, reuse?: TimestampCheckReuse): Promise<boolean> {
  const attributes = signerInfo.signedAttrs;
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  // RFC 3161 §2.4.2: the token's SignerInfo always carries signed attributes (content type, digest, ESS).
  const digestAttribute = attributes?.attributes.find((a) => a.type === MESSAGE_DIGEST_OID)?.values[0] as asn1js.OctetString | undefined;
  if (!attributes || !hash || !digestAttribute) return false;
  if (hex(digestAttribute.valueBlock.valueHexView) !== hex(await crypto.subtle.digest(hash, buffer(tstInfoDer)))) return false;
  const engine = pkijs.getCrypto(true);
  const rsa = signerInfo.signatureAlgorithm.algorithmId === RSA_ENCRYPTION_OID;
  // `encodedValue` is the attributes' DER re-tagged as a SET, which is what was signed (RFC 5652 §5.4).
  if (!reuse || signer.subjectPublicKeyInfo.algorithm.algorithmId !== EC_PUBLIC_KEY_OID) {
    return rsa
      ? engine.verifyWithPublicKey(attributes.encodedValue, signerInfo.signature, signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm, hash)
      : engine.verifyWithPublicKey(attributes.encodedValue, signerInfo.signature, signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm);
  }
  // The same verification as pkijs's for an ECDSA signer, with its key imported once per certificate and algorithm.
  const key = await reuse.publicKey(`${signerHex} ${signerInfo.signatureAlgorithm.algorithmId}`, () => engine.getPublicKey(signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm));
  const curve = pkijs.ECNamedCurves.find((key.algorithm as { namedCurve?: string }).namedCurve ?? "");
  const cms = asn1js.fromBER(signerInfo.signature.valueBlock.valueHexView);
  if (!curve || cms.offset === -1) return false;
  const signature = pkijs.createECDSASignatureFromCMS(cms.result, curve.size);
  return crypto.subtle.verify({ name: "ECDSA", hash: engine.getHashAlgorithm(signerInfo.signatureAlgorithm) }, key, signature, attributes.encodedValue);
}

const selfSigned = (cert: pkijs.Certificate) => cert.subject.isEqual(cert.issuer);

/**
 * A token's SignedData and the certificates it carries. With `reuse`, the certificates (the `[0]` field)
 * are taken out before pkijs reads the rest and parsed once per distinct DER: the same signer's
 * certificate comes with every token of an authority.
 */
function signedDataOf(content: unknown, reuse?: TimestampCheckReuse): { signedData: pkijs.SignedData; carried: pkijs.Certificate[] } {
  const fields = content instanceof asn1js.Sequence ? content.valueBlock.value : null;
  const certificatesAt = fields?.findIndex((field) => field.idBlock.tagClass === 3 && field.idBlock.tagNumber === 0) ?? -1;
  if (!reuse || !fields || certificatesAt === -1) {
    const signedData = new pkijs.SignedData({ schema: content });
    return { signedData, carried: (signedData.certificates ?? []).filter((cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate) };
  }
  const choices = (fields[certificatesAt] as asn1js.Constructed).valueBlock.value;
  // A plain SEQUENCE is a Certificate; the other CertificateChoices (tagged) are not certificates to check with.
  const carried = choices.filter((choice) => choice instanceof asn1js.Sequence).map((choice) => reuse.certificate(new Uint8Array(choice.valueBeforeDecodeView)));
  const signedData = new pkijs.SignedData({ schema: new asn1js.Sequence({ value: fields.filter((_, index) => index !== certificatesAt) }) });
  return { signedData, carried };
}

/**
 * Inspects an RFC 3161 TimeStampResp against the data it should cover and the roots it should chain to,
 * without trusting anything in it: each property is reported separately, so that the sealer can refuse a
 * bad answer precisely and public verification can name the check that failed. Other data only clears
 * `imprintMatches`: the signature, the signer and the chain do not depend on it. `chainPem` holds the
 * roots (self-signed certificates, the only trust anchors, as `openssl ts -verify -CAfile`) and may hold
 * intermediates and the signer's own certificate, used when the token does not carry them (as `-untrusted`).
 * Chains are evaluated at the token's own `genTime` (a certificate that expired since does not invalidate
 * an old proof).
 */
export async function checkTimestamp(tsr: Uint8Array, data: Uint8Array, chainPem: string, options: TimestampCheckOptions = {}): Promise<TimestampCheck> {
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
    rootCertificate: null,
    token: null,
    signerNotAfter: null,
  };
  try {
    const outer = asn1js.fromBER(buffer(tsr));
    // A bare TimeStampToken (a ContentInfo: its first element is an OID), as an archive timestamp holds it.
    const bare = (outer.result as asn1js.Sequence).valueBlock.value[0] instanceof asn1js.ObjectIdentifier;
    const response = bare ? null : new pkijs.TimeStampResp({ schema: outer.result });
    const token = bare ? new pkijs.ContentInfo({ schema: outer.result }) : response!.timeStampToken;
    if ((response && response.status.status !== 0 && response.status.status !== 1) || !token) return result;
    result.granted = true;
    result.token = bare ? tsr.slice() : new Uint8Array((outer.result as asn1js.Sequence).valueBlock.value[1]!.valueBeforeDecodeView);
    const { signedData, carried } = signedDataOf(token.content, options.reuse);
    const content = signedData.encapContentInfo.eContent;
    if (!content) return result;
    const tstInfoDer = new Uint8Array(content.getValue());
    const tstInfo = pkijs.TSTInfo.fromBER(buffer(tstInfoDer));
    result.genTime = tstInfo.genTime.toISOString();
    result.serial = serialText(tstInfo.serialNumber);
    result.policy = tstInfo.policy;
    result.nonceHex = tstInfo.nonce ? hex(tstInfo.nonce.valueBlock.valueHexView) : null;
    const imprintHash = HASHES[tstInfo.messageImprint.hashAlgorithm.algorithmId];
    result.imprintMatches =
      imprintHash !== undefined &&
      imprintHash !== "SHA-1" &&
      hex(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView) === hex(options.imprint ?? (await crypto.subtle.digest(imprintHash, buffer(data))));

    const supplied = options.reuse ? options.reuse.certificates(chainPem) : pemCertificatesDer(chainPem).map((der) => pkijs.Certificate.fromBER(buffer(der)));
    const signerInfo = signedData.signerInfos[0];
    const signer = signerInfo ? namedBy(signerInfo, [...carried, ...supplied]) : null;
    if (!signerInfo || !signer) return result;
    result.signerCertificate = options.reuse ? options.reuse.encoded(signer) : new Uint8Array(signer.toSchema().toBER());
    const signerHex = hex(result.signerCertificate);
    result.signatureValid = await signatureVerifies(signerInfo, signer, signerHex, tstInfoDer, options.reuse).catch(() => false);
    result.signerCertifiedForTimestamping = certifiedForTimestamping(signer);
    result.signerCertificateBound = await bindsCertificate(signerInfo, result.signerCertificate);
    result.signerNotAfter = signer.notAfter.value.toISOString();
    const checkDate = options.at ?? tstInfo.genTime;
    // The chain is the same for every token an authority signs with the same certificates: the anchors, the
    // signer, and what the token carries, all part of the key.
    const chainKey = [chainPem, signerHex, ...carried.map((cert) => (cert === signer ? signerHex : hex(options.reuse?.encoded(cert) ?? cert.toSchema().toBER())))].join(" ");
    const knownRoot = options.reuse?.trustedRoot(chainKey, checkDate) ?? null;
    if (knownRoot) {
      result.chainTrusted = true;
      result.rootCertificate = knownRoot;
      return result;
    }
    const engine = new pkijs.CertificateChainValidationEngine({
      // Only self-signed certificates are anchors: an intermediate or the signer in chain.pem is not trusted by being there.
      trustedCerts: supplied.filter(selfSigned),
      // The chain is built from the last certificate: the signer's, whatever order the token lists them in.
      certs: [...[...carried, ...supplied.filter((cert) => !selfSigned(cert))].filter((cert) => cert !== signer), signer],
      checkDate,
    });
    const chain = await engine.verify();
    result.chainTrusted = chain.result === true;
    const root = chain.certificatePath?.at(-1);
    if (result.chainTrusted && root) {
      result.rootCertificate = new Uint8Array(root.toSchema().toBER());
      options.reuse?.rememberTrusted(chainKey, chain.certificatePath!, result.rootCertificate);
    }
  } catch {
    return result;
  }
  return result;
}
