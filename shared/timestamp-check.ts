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
  /** What the known-shape reading hashes and verifies with (WebCrypto unless the caller gives its own). */
  readonly primitives: CheckPrimitives;
  readonly #certificates = new Map<string, pkijs.Certificate[]>();
  readonly #publicKeys = new Map<string, Promise<CryptoKey>>();
  readonly #trustedChains = new Map<string, { periods: [Date, Date][]; root: Uint8Array }>();

  readonly #parsed = new Map<string, pkijs.Certificate>();
  readonly #encoded = new WeakMap<pkijs.Certificate, Uint8Array>();
  readonly #publicKeyInfos = new WeakMap<pkijs.Certificate, Uint8Array>();

  constructor(primitives: CheckPrimitives = webCryptoPrimitives) {
    this.primitives = primitives;
  }

  /** A certificate a token carries, parsed once per distinct DER (pkijs's schema matching is most of a token's parse). */
  certificate(der: Uint8Array): pkijs.Certificate {
    return remembered(this.#parsed, hex(der), () => {
      const certificate = pkijs.Certificate.fromBER(buffer(der));
      this.#encoded.set(certificate, der.slice());
      return certificate;
    });
  }

  /** A certificate's SubjectPublicKeyInfo (DER), encoded once. */
  publicKeyInfo(certificate: pkijs.Certificate): Uint8Array {
    let spki = this.#publicKeyInfos.get(certificate);
    if (spki === undefined) {
      spki = new Uint8Array(certificate.subjectPublicKeyInfo.toSchema().toBER());
      this.#publicKeyInfos.set(certificate, spki);
    }
    return spki;
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

/**
 * Digest and ECDSA verification for the known-shape reading. In Node, WebCrypto runs each call on libuv's
 * thread pool, where it waits behind whatever else is queued there (the sealer's thumbnails): a caller
 * may give synchronous ones (the sealer gives node:crypto's).
 */
export interface CheckPrimitives {
  /** `hash`: SHA-1, SHA-256, SHA-384 or SHA-512. */
  digest(hash: string, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Whether `signature` (an ECDSA-Sig-Value, DER, as CMS carries it) signs `data` under the key of `spki` (DER). */
  verifyEcdsa(spki: Uint8Array, hash: string, signature: Uint8Array, data: Uint8Array): boolean | Promise<boolean>;
}

const webCryptoKeys = new Map<string, Promise<CryptoKey | null>>();

const webCryptoPrimitives: CheckPrimitives = {
  digest: async (hash, data) => new Uint8Array(await crypto.subtle.digest(hash, buffer(data))),
  async verifyEcdsa(spki, hash, signature, data) {
    const key = await remembered(webCryptoKeys, hex(spki), async () => {
      const info = new pkijs.PublicKeyInfo({ schema: asn1js.fromBER(buffer(spki)).result });
      const curve = CURVE_NAMES[(info.algorithm.algorithmParams as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString() ?? ""];
      return curve ? crypto.subtle.importKey("spki", buffer(spki), { name: "ECDSA", namedCurve: curve }, false, ["verify"]) : null;
    });
    const size = CURVE_SIZES[(key?.algorithm as { namedCurve?: string } | undefined)?.namedCurve ?? ""];
    const raw = size ? ecdsaSignatureP1363(signature, size) : null;
    return key !== null && raw !== null && crypto.subtle.verify({ name: "ECDSA", hash }, key, buffer(raw), buffer(data));
  },
};

const CURVE_NAMES: Record<string, string> = { "1.2.840.10045.3.1.7": "P-256", "1.3.132.0.34": "P-384", "1.3.132.0.35": "P-521" };

/** `map`'s value for `key`, made once; a process meets a handful of keys, so the map is emptied beyond `REUSE_LIMIT`. */
export function remembered<V>(map: Map<string, V>, key: string, make: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  if (map.size >= REUSE_LIMIT) map.clear();
  const value = make();
  map.set(key, value);
  return value;
}

const SHA1_OID = "1.3.14.3.2.26";
const SHA256_OID = "2.16.840.1.101.3.4.2.1";
const HASHES: Record<string, string> = {
  [SHA1_OID]: "SHA-1",
  [SHA256_OID]: "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};
const TIME_STAMPING_OID = "1.3.6.1.5.5.7.3.8";
const EXTENDED_KEY_USAGE_OID = "2.5.29.37";
const SIGNING_CERTIFICATE_OID = "1.2.840.113549.1.9.16.2.12";
const SIGNING_CERTIFICATE_V2_OID = "1.2.840.113549.1.9.16.2.47";
const CONTENT_TYPE_OID = "1.2.840.113549.1.9.3";
const MESSAGE_DIGEST_OID = "1.2.840.113549.1.9.4";
const SIGNING_TIME_OID = "1.2.840.113549.1.9.5";
const SUBJECT_KEY_IDENTIFIER_OID = "2.5.29.14";
const RSA_ENCRYPTION_OID = "1.2.840.113549.1.1.1";
const EC_PUBLIC_KEY_OID = "1.2.840.10045.2.1";

export const hex = (bytes: ArrayBuffer | Uint8Array) =>
  [...(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;

/** The DER of every certificate in a PEM bundle. */
export function pemCertificatesDer(pem: string): Uint8Array[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => Uint8Array.from(atob(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "")), (c) => c.charCodeAt(0)));
}

/** An INTEGER's content bytes as `openssl ts -reply -text` prints a serial. */
const serialText = (serial: Uint8Array) => `0x${hex(withoutLeadingZeros(serial)).toUpperCase()}`;

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
    attribute.type === SIGNING_CERTIFICATE_OID
      ? SHA1_OID
      : parts[0] instanceof asn1js.Sequence
        ? new pkijs.AlgorithmIdentifier({ schema: parts[0] }).algorithmId
        : SHA256_OID;
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
async function signatureVerifies(
  signerInfo: pkijs.SignerInfo,
  signer: pkijs.Certificate,
  signerHex: string,
  tstInfoDer: Uint8Array,
  reuse?: TimestampCheckReuse,
): Promise<boolean> {
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
  const key = await reuse.publicKey(`${signerHex} ${signerInfo.signatureAlgorithm.algorithmId}`, () =>
    engine.getPublicKey(signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm),
  );
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
  const carried = choices
    .filter((choice) => choice instanceof asn1js.Sequence)
    .map((choice) => reuse.certificate(new Uint8Array(choice.valueBeforeDecodeView)));
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
    // Whatever the known-shape reading cannot settle, even by failing, the full check below decides.
    const known = options.reuse ? await knownShapeCheck(tsr, data, chainPem, options, options.reuse).catch(() => null) : null;
    if (known) return known;
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
    result.serial = serialText(tstInfo.serialNumber.valueBlock.valueHexView);
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
    const chainKey = [
      chainPem,
      signerHex,
      ...carried.map((cert) => (cert === signer ? signerHex : hex(options.reuse?.encoded(cert) ?? cert.toSchema().toBER()))),
    ].join(" ");
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

/**
 * The sealer's common case, checked without pkijs or asn1js reading the token (their reading was most of a
 * check's 2.4 ms and 3.5 MB of garbage, 11 times a proof on the sealer's event loop): a granted response
 * whose token's DER is read here field by field, from an ECDSA signer named by issuer and serial number
 * whose certificate and chain an earlier check of `reuse` already parsed and found trusted at this
 * genTime. It answers only when every property holds; anything else (another shape, a failed property,
 * a chain not yet known) answers null and the full check above decides. Its reading must therefore refuse
 * whatever pkijs and asn1js refuse in the fields it reads (versions, algorithm parameters, the
 * digestAlgorithms SET, the PKIStatusInfo, OIDs as asn1js reads them, the tsa Name and the signed
 * attributes, those it does not know answering null): a field skipped or read more
 * loosely than theirs is a token accepted here and refused there. Being stricter only costs the full
 * check (bytes after the response, for one, which the full check ignores).
 */
async function knownShapeCheck(
  tsr: Uint8Array,
  data: Uint8Array,
  chainPem: string,
  options: TimestampCheckOptions,
  reuse: TimestampCheckReuse,
): Promise<TimestampCheck | null> {
  let token: TokenFields;
  try {
    token = tokenFields(tsr);
  } catch {
    return null;
  }
  const { tstInfo, signer: signerInfo } = token;
  const imprintHash = HASHES[tstInfo.imprintAlgorithm];
  const digestHash = HASHES[signerInfo.digestAlgorithm];
  const verifyHash = ECDSA_HASHES[signerInfo.signatureAlgorithm];
  if (!imprintHash || imprintHash === "SHA-1" || !digestHash || !verifyHash) return null;
  const { digest, verifyEcdsa } = reuse.primitives;
  const expected = options.imprint ?? (await digest(imprintHash, data));
  if (!bytesEqual(tstInfo.imprint, expected)) return null;
  const carried = token.certificates.map((der) => reuse.certificate(der));
  const signer = [...carried, ...reuse.certificates(chainPem)].find(
    (cert) =>
      bytesEqual(new Uint8Array(cert.issuer.valueBeforeDecode), signerInfo.issuer) && bytesEqual(cert.serialNumber.valueBlock.valueHexView, signerInfo.serial),
  );
  if (!signer || signer.subjectPublicKeyInfo.algorithm.algorithmId !== EC_PUBLIC_KEY_OID || !certifiedForTimestamping(signer)) return null;
  const signerDer = reuse.encoded(signer);
  const signerHex = hex(signerDer);
  const chainKey = [chainPem, signerHex, ...carried.map((cert) => (cert === signer ? signerHex : hex(reuse.encoded(cert))))].join(" ");
  const root = reuse.trustedRoot(chainKey, options.at ?? tstInfo.genTime);
  if (!root) return null;
  const essHash = HASHES[signerInfo.essAlgorithm ?? ""];
  if (!essHash || !signerInfo.essCertHash || !bytesEqual(signerInfo.essCertHash, await digest(essHash, signerDer))) return null;
  if (!signerInfo.messageDigest || !bytesEqual(signerInfo.messageDigest, await digest(digestHash, tstInfo.der))) return null;
  const spki = reuse.publicKeyInfo(signer);
  if (!(await verifyEcdsa(spki, verifyHash, signerInfo.signature, signerInfo.signedAttributes))) return null;
  return {
    granted: true,
    signatureValid: true,
    imprintMatches: true,
    chainTrusted: true,
    signerCertifiedForTimestamping: true,
    signerCertificateBound: true,
    genTime: tstInfo.genTime.toISOString(),
    serial: serialText(tstInfo.serial),
    policy: tstInfo.policy,
    nonceHex: tstInfo.nonce ? hex(tstInfo.nonce) : null,
    signerCertificate: signerDer,
    rootCertificate: root,
    token: tsr.slice(token.start, token.end),
    signerNotAfter: signer.notAfter.value.toISOString(),
  };
}

const ECDSA_HASHES: Record<string, string> = { "1.2.840.10045.4.3.2": "SHA-256", "1.2.840.10045.4.3.3": "SHA-384", "1.2.840.10045.4.3.4": "SHA-512" };
const CURVE_SIZES: Record<string, number> = { "P-256": 32, "P-384": 48, "P-521": 66 };
const SIGNED_DATA_OID = "1.2.840.113549.1.7.2";
const TST_INFO_OID = "1.2.840.113549.1.9.16.1.4";

/** What knownShapeCheck reads of a token; every byte array a view into the response. */
interface TokenFields {
  /** Where the TimeStampToken lies in the response. */
  start: number;
  end: number;
  certificates: Uint8Array[];
  tstInfo: { der: Uint8Array; policy: string; imprintAlgorithm: string; imprint: Uint8Array; serial: Uint8Array; genTime: Date; nonce: Uint8Array | null };
  signer: {
    issuer: Uint8Array;
    serial: Uint8Array;
    digestAlgorithm: string;
    /** The signed attributes as signed: their DER tagged as a SET (RFC 5652 §5.4). */
    signedAttributes: Uint8Array;
    messageDigest: Uint8Array | null;
    essAlgorithm: string | null;
    essCertHash: Uint8Array | null;
    signatureAlgorithm: string;
    signature: Uint8Array;
  };
}

/** One DER element: where its header and contents lie (its tag is the one asked for). */
interface Element {
  start: number;
  contentStart: number;
  end: number;
}

/** Strict DER: one-byte tags, definite minimal lengths, nothing past `limit`; throws on anything else. */
function element(bytes: Uint8Array, at: number, limit: number, tag: number): Element {
  if (at + 2 > limit || bytes[at] !== tag) throw new RangeError("unexpected DER");
  let length = bytes[at + 1]!;
  let contentStart = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 3 || bytes[contentStart] === 0) throw new RangeError("unexpected DER length");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[contentStart + i]!;
    if (length < 0x80) throw new RangeError("unexpected DER length");
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > limit) throw new RangeError("DER past its container");
  return { start: at, contentStart, end };
}

/** Reads a constructed element's children in order, each of the tag asked for (or skips an optional one). */
export class Reader {
  readonly bytes: Uint8Array;
  readonly parent: Element;
  #at: number;
  constructor(bytes: Uint8Array, parent: Element) {
    this.bytes = bytes;
    this.parent = parent;
    this.#at = parent.contentStart;
  }
  more(): boolean {
    return this.#at < this.parent.end;
  }
  next(tag: number): Element {
    const found = element(this.bytes, this.#at, this.parent.end, tag);
    this.#at = found.end;
    return found;
  }
  /** Whether the next field has this tag. */
  nextIs(tag: number): boolean {
    return this.more() && this.bytes[this.#at] === tag;
  }
  optional(tag: number): Element | null {
    return this.nextIs(tag) ? this.next(tag) : null;
  }
  done(): void {
    if (this.#at !== this.parent.end) throw new RangeError("unexpected DER after the last field");
  }
  contents = (found: Element) => this.bytes.subarray(found.contentStart, found.end);
  oid = (found: Element) => oidText(this.contents(found));
  children = (found: Element) => new Reader(this.bytes, found);
}

/** The DER tags the readers here meet. */
export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
  IMPLICIT_0: 0x80,
  IMPLICIT_1: 0x81,
  CONTEXT_0: 0xa0,
  CONTEXT_1: 0xa1,
  DIRECTORY_NAME: 0xa4,
} as const;
const {
  BOOLEAN,
  INTEGER,
  BIT_STRING,
  OCTET_STRING,
  NULL,
  OID,
  UTF8_STRING,
  UTC_TIME,
  GENERALIZED_TIME,
  SEQUENCE,
  SET,
  IMPLICIT_0,
  IMPLICIT_1,
  CONTEXT_0,
  CONTEXT_1,
  DIRECTORY_NAME,
} = TAG;

/** The children of `der`, which must be one SEQUENCE and nothing after it. */
export function sequenceReader(der: Uint8Array): Reader {
  const whole = element(der, 0, der.length, SEQUENCE);
  if (whole.end !== der.length) throw new RangeError("bytes after the SEQUENCE");
  return new Reader(der, whole);
}

/** A granted TimeStampResp's token, read field by field (RFC 3161 §2.4.2, RFC 5652 §5). */
function tokenFields(tsr: Uint8Array): TokenFields {
  const response = sequenceReader(tsr);
  const status = response.children(response.next(SEQUENCE));
  // PKIStatusInfo: granted (0) or grantedWithMods (1), as the full check counts them; then the optional
  // statusString (UTF8Strings) and failInfo.
  const granted = status.contents(status.next(INTEGER));
  if (granted.length !== 1 || granted[0]! > 1) throw new RangeError("not granted");
  const statusString = status.optional(SEQUENCE);
  const texts = statusString ? status.children(statusString) : null;
  while (texts?.more()) texts.next(UTF8_STRING);
  status.optional(BIT_STRING);
  status.done();
  const tokenElement = response.next(SEQUENCE);
  response.done();
  const token = response.children(tokenElement);
  if (token.oid(token.next(OID)) !== SIGNED_DATA_OID) throw new RangeError("not SignedData");
  const explicit = token.children(token.next(CONTEXT_0));
  token.done();
  const signedData = explicit.children(explicit.next(SEQUENCE));
  explicit.done();
  // Version 3: RFC 5652 §5.1 for an eContentType other than id-data with only X.509 certificates (the only kind read here).
  version(signedData, 3);
  const digestAlgorithmSet = signedData.children(signedData.next(SET));
  const digestAlgorithms: string[] = [];
  while (digestAlgorithmSet.more()) digestAlgorithms.push(algorithmOid(digestAlgorithmSet));
  const encapsulated = signedData.children(signedData.next(SEQUENCE));
  if (encapsulated.oid(encapsulated.next(OID)) !== TST_INFO_OID) throw new RangeError("not a TSTInfo");
  const eContent = encapsulated.children(encapsulated.next(CONTEXT_0));
  encapsulated.done();
  const tstInfoElement = eContent.next(OCTET_STRING);
  eContent.done();
  const certificatesElement = signedData.optional(CONTEXT_0);
  const certificates: Uint8Array[] = [];
  const list = certificatesElement ? signedData.children(certificatesElement) : null;
  while (list?.more()) {
    const certificate = list.next(SEQUENCE);
    certificates.push(tsr.subarray(certificate.start, certificate.end));
  }
  const signerInfos = signedData.children(signedData.next(SET));
  signedData.done();
  const signerInfo = signerInfos.children(signerInfos.next(SEQUENCE));
  signerInfos.done();
  const signer = signerFields(tsr, signerInfo);
  if (!digestAlgorithms.includes(signer.digestAlgorithm)) throw new RangeError("the signer's digest algorithm is not among the SignedData's");
  return {
    start: tokenElement.start,
    end: tokenElement.end,
    certificates,
    tstInfo: tstInfoFields(tsr.subarray(tstInfoElement.contentStart, tstInfoElement.end)),
    signer,
  };
}

export function tstInfoFields(der: Uint8Array): TokenFields["tstInfo"] {
  const fields = sequenceReader(der);
  version(fields, 1);
  const policy = fields.oid(fields.next(OID));
  const messageImprint = fields.children(fields.next(SEQUENCE));
  const imprintAlgorithmOid = algorithmOid(messageImprint);
  const imprint = messageImprint.contents(messageImprint.next(OCTET_STRING));
  messageImprint.done();
  const serial = fields.contents(fields.next(INTEGER));
  const genTime = generalizedTime(fields.contents(fields.next(GENERALIZED_TIME)));
  const accuracyElement = fields.optional(SEQUENCE);
  if (accuracyElement) {
    const accuracy = fields.children(accuracyElement);
    accuracy.optional(INTEGER);
    accuracy.optional(IMPLICIT_0);
    accuracy.optional(IMPLICIT_1);
    accuracy.done();
  }
  fields.optional(BOOLEAN);
  const nonce = fields.optional(INTEGER);
  // The tsa only as a directoryName; extensions, whose contents nothing here reads, are left to the full check.
  const tsa = fields.optional(CONTEXT_0);
  if (tsa) directoryName(fields.children(tsa));
  if (fields.nextIs(CONTEXT_1)) throw new RangeError("TSTInfo extensions");
  fields.done();
  return { der, policy, imprintAlgorithm: imprintAlgorithmOid, imprint, serial, genTime, nonce: nonce ? fields.contents(nonce) : null };
}

function signerFields(tsr: Uint8Array, signerInfo: Reader): TokenFields["signer"] {
  // Version 1 goes with a signer named by issuer and serial number (RFC 5652 §5.3), the only sid read here.
  version(signerInfo, 1);
  const sid = signerInfo.children(signerInfo.next(SEQUENCE));
  const issuer = sid.next(SEQUENCE);
  const serial = sid.contents(sid.next(INTEGER));
  sid.done();
  const digestAlgorithm = algorithmOid(signerInfo);
  const attributesElement = signerInfo.next(CONTEXT_0);
  const signatureAlgorithm = algorithmOid(signerInfo);
  const signature = signerInfo.contents(signerInfo.next(OCTET_STRING));
  signerInfo.done();
  const signedAttributes = tsr.slice(attributesElement.start, attributesElement.end);
  signedAttributes[0] = SET;
  return {
    issuer: tsr.subarray(issuer.start, issuer.end),
    serial,
    digestAlgorithm,
    signedAttributes,
    ...signedAttributeFields(signerInfo.children(attributesElement)),
    signatureAlgorithm,
    signature,
  };
}

/**
 * The signed attributes, each read to its end: only the types a timestamp token carries (contentType naming a
 * TSTInfo, messageDigest, signingTime, one ESS signing-certificate attribute), each with exactly one value.
 * Any other type, a second value, a repeated type or a field read no further is left to the full check.
 */
export function signedAttributeFields(attributes: Reader): Pick<TokenFields["signer"], "messageDigest" | "essAlgorithm" | "essCertHash"> {
  const fields: ReturnType<typeof signedAttributeFields> = { messageDigest: null, essAlgorithm: null, essCertHash: null };
  const seen = new Set<string>();
  while (attributes.more()) {
    const attribute = attributes.children(attributes.next(SEQUENCE));
    const type = attribute.oid(attribute.next(OID));
    const values = attribute.children(attribute.next(SET));
    attribute.done();
    // The full check reads the first of each type: a repeated one is left to it.
    if (seen.has(type)) throw new RangeError("repeated attribute");
    seen.add(type);
    if (type === CONTENT_TYPE_OID) {
      if (values.oid(values.next(OID)) !== TST_INFO_OID) throw new RangeError("contentType other than the TSTInfo");
    } else if (type === MESSAGE_DIGEST_OID) {
      fields.messageDigest = values.contents(values.next(OCTET_STRING));
    } else if (type === SIGNING_TIME_OID) {
      if (values.nextIs(UTC_TIME)) utcTime(values.contents(values.next(UTC_TIME)));
      else generalizedTime(values.contents(values.next(GENERALIZED_TIME)));
    } else if (type === SIGNING_CERTIFICATE_V2_OID || type === SIGNING_CERTIFICATE_OID) {
      if (fields.essCertHash) throw new RangeError("two signing-certificate attributes");
      const v2 = type === SIGNING_CERTIFICATE_V2_OID;
      const signingCertificate = values.children(values.next(SEQUENCE));
      const certs = signingCertificate.children(signingCertificate.next(SEQUENCE));
      // The first names the signer's certificate; further ones (the rest of its chain) are read to their end, not compared.
      const [first] = essCertIds(certs, v2);
      if (!first) throw new RangeError("no ESSCertID");
      fields.essAlgorithm = first.algorithm;
      fields.essCertHash = first.hash;
      const policies = signingCertificate.optional(SEQUENCE);
      const policyList = policies ? signingCertificate.children(policies) : null;
      while (policyList?.more()) {
        // PolicyInformation with its identifier only: qualifiers are left to the full check.
        const policy = policyList.children(policyList.next(SEQUENCE));
        policy.oid(policy.next(OID));
        policy.done();
      }
      signingCertificate.done();
    } else {
      throw new RangeError("a signed attribute not read here");
    }
    values.done();
  }
  return fields;
}

/** ESSCertID(v2)s (RFC 2634 §5.4, RFC 5035 §4), each read to its end with its optional issuerSerial. */
function essCertIds(certs: Reader, v2: boolean): { algorithm: string; hash: Uint8Array }[] {
  const ids: { algorithm: string; hash: Uint8Array }[] = [];
  while (certs.more()) {
    const id = certs.children(certs.next(SEQUENCE));
    const algorithm = v2 ? (id.nextIs(SEQUENCE) ? algorithmOid(id) : SHA256_OID) : SHA1_OID;
    const hash = id.contents(id.next(OCTET_STRING));
    const issuerSerial = id.optional(SEQUENCE);
    if (issuerSerial) {
      const fields = id.children(issuerSerial);
      const names = fields.children(fields.next(SEQUENCE));
      do directoryName(names);
      while (names.more());
      fields.next(INTEGER);
      fields.done();
    }
    id.done();
    ids.push({ algorithm, hash });
  }
  return ids;
}

/** The next GeneralName, which must be a directoryName [4] holding a Name read to its end; any other form is left to the full check. */
export function directoryName(fields: Reader): void {
  const name = fields.children(fields.next(DIRECTORY_NAME));
  const rdnSequence = name.children(name.next(SEQUENCE));
  name.done();
  while (rdnSequence.more()) {
    const rdn = rdnSequence.children(rdnSequence.next(SET));
    // RelativeDistinguishedName ::= SET SIZE (1..MAX) OF AttributeTypeAndValue
    do {
      const typeAndValue = rdn.children(rdn.next(SEQUENCE));
      typeAndValue.oid(typeAndValue.next(OID));
      typeAndValue.next(NAME_STRING_TAGS.find((tag) => typeAndValue.nextIs(tag)) ?? UTF8_STRING);
      typeAndValue.done();
    } while (rdn.more());
  }
  fields.done();
}

/** The string types a Name's values are read in here (X.520's DirectoryString, PrintableString and IA5String). */
const NAME_STRING_TAGS = [0x0c, 0x13, 0x16];

/** `YYMMDDHHMMSSZ`, as RFC 5652 §11.3 writes a signingTime before 2050; its value is not used here. */
function utcTime(bytes: Uint8Array): void {
  if (!/^\d{12}Z$/.test(String.fromCharCode(...bytes))) throw new RangeError("unexpected UTCTime");
}

/** `YYYYMMDDHHMMSS[.fff]Z`, as RFC 3161 §2.4.2 writes it; finer fractions are left to the full check. */
function generalizedTime(bytes: Uint8Array): Date {
  const text = String.fromCharCode(...bytes);
  const parts = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,3}))?Z$/.exec(text);
  if (!parts) throw new RangeError("unexpected GeneralizedTime");
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, Number((parts[7] ?? "").padEnd(3, "0"))));
}

/** An INTEGER version field that must be `expected`; another (even a valid one) is left to the full check. */
function version(fields: Reader, expected: number): void {
  const value = fields.contents(fields.next(INTEGER));
  if (value.length !== 1 || value[0] !== expected) throw new RangeError("unexpected version");
}

/** The next field, an AlgorithmIdentifier: its OID, with parameters absent or NULL (anything else is left to the full check). */
function algorithmOid(fields: Reader): string {
  const algorithm = fields.children(fields.next(SEQUENCE));
  const oid = algorithm.oid(algorithm.next(OID));
  const parameters = algorithm.optional(NULL);
  if (parameters && parameters.end !== parameters.contentStart) throw new RangeError("NULL with contents");
  algorithm.done();
  return oid;
}

/** Strict, as asn1js: no empty OID, no arc padded with a leading 0x80, no last arc left unfinished. */
function oidText(bytes: Uint8Array): string {
  if (bytes.length === 0 || bytes[bytes.length - 1]! & 0x80) throw new RangeError("unfinished OID");
  const arcs: number[] = [];
  let value = 0;
  let arcStart = true;
  for (const byte of bytes) {
    if (arcStart && byte === 0x80) throw new RangeError("OID arc padded with 0x80");
    value = value * 128 + (byte & 0x7f);
    arcStart = !(byte & 0x80);
    if (arcStart) {
      arcs.push(value);
      value = 0;
    }
  }
  const first = Math.min(2, Math.floor(arcs[0]! / 40));
  return [first, arcs[0]! - first * 40, ...arcs.slice(1)].join(".");
}

function withoutLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

/** An ECDSA-Sig-Value (DER) as WebCrypto wants it: r and s, each `size` bytes; null when either is longer. */
function ecdsaSignatureP1363(der: Uint8Array, size: number): Uint8Array | null {
  try {
    const values = sequenceReader(der);
    const [r, s] = [values.contents(values.next(INTEGER)), values.contents(values.next(INTEGER))].map(withoutLeadingZeros);
    values.done();
    if (r!.length > size || s!.length > size) return null;
    const signature = new Uint8Array(size * 2);
    signature.set(r!, size - r!.length);
    signature.set(s!, size * 2 - s!.length);
    return signature;
  } catch {
    return null;
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
