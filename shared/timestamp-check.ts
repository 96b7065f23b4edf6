import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { boundedCache } from "./bounded-cache.ts";

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
  /** The certificates the token carries (DER, in its order): with the chain file, the pool the signer's path is built from. */
  certificates: Uint8Array[];
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

/** Entries kept per cache, for the process's or isolate's life: it meets a handful of authorities; the oldest beyond is dropped and rebuilt. */
const REUSE_LIMIT = 64;

/**
 * What checking many tokens of the same authorities can reuse (the sealer checks 11 per proof, and parsing
 * the chain file and validating the chain again cost more than the rest of a check): the chain file's
 * certificates and those tokens carry, parsed once per distinct DER, and each chain found trusted, with the
 * validity period of every certificate on it. A chain's trust depends on the token's genTime only through
 * those periods (building and checking the path does not look at dates), so a token whose genTime falls
 * outside one is validated afresh. Every token itself is parsed by pkijs and checked in full each time:
 * its status, signature, imprint, signer, usage and binding.
 */
export class TimestampCheckReuse {
  /** What a check hashes and verifies ECDSA signatures with (WebCrypto unless the caller gives its own). */
  readonly primitives: CheckPrimitives;
  readonly #certificates = boundedCache<string, pkijs.Certificate[]>({ maxEntries: REUSE_LIMIT });
  readonly #trustedChains = boundedCache<string, { periods: [Date, Date][]; root: Uint8Array }>({ maxEntries: REUSE_LIMIT });

  readonly #parsed = boundedCache<string, pkijs.Certificate>({ maxEntries: REUSE_LIMIT });
  readonly #encoded = new WeakMap<pkijs.Certificate, Uint8Array>();
  readonly #keys = new WeakMap<pkijs.Certificate, string>();
  readonly #publicKeyInfos = new WeakMap<pkijs.Certificate, Uint8Array>();

  constructor(primitives: CheckPrimitives = webCryptoPrimitives) {
    this.primitives = primitives;
  }

  /** A certificate of the chain file or of a token, parsed by pkijs once per distinct DER: an authority sends the same one with every token. */
  certificate(der: Uint8Array): pkijs.Certificate {
    const key = hex(der);
    return this.#parsed.getOrSet(key, () => {
      const certificate = pkijs.Certificate.fromBER(buffer(der));
      this.#encoded.set(certificate, der.slice());
      this.#keys.set(certificate, key);
      return certificate;
    });
  }

  /** A certificate's DER in hex, the key a chain is remembered by. */
  key(certificate: pkijs.Certificate): string {
    let key = this.#keys.get(certificate);
    if (key === undefined) {
      key = hex(this.encoded(certificate));
      this.#keys.set(certificate, key);
    }
    return key;
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
    let der = this.#encoded.get(certificate);
    if (der === undefined) {
      der = new Uint8Array(certificate.toSchema().toBER());
      this.#encoded.set(certificate, der);
    }
    return der;
  }

  certificates(chainPem: string): pkijs.Certificate[] {
    return this.#certificates.getOrSet(chainPem, () => pemCertificatesDer(chainPem, MAX_CHAIN_CERTIFICATES).map((der) => this.certificate(der)));
  }

  /** The root of a chain found trusted before, when `at` falls within every certificate's validity period on it. */
  trustedRoot(key: string, at: Date): Uint8Array | null {
    const chain = this.#trustedChains.get(key);
    return chain?.periods.every(([notBefore, notAfter]) => notBefore <= at && at <= notAfter) ? chain.root : null;
  }

  rememberTrusted(key: string, path: pkijs.Certificate[], root: Uint8Array): void {
    this.#trustedChains.getOrSet(key, () => ({ periods: path.map((cert) => [cert.notBefore.value, cert.notAfter.value] as [Date, Date]), root }));
  }
}

/**
 * Digest and ECDSA verification applied to the fields pkijs parsed. In Node, WebCrypto runs each call on
 * libuv's thread pool, where it waits behind whatever else is queued there (the sealer's thumbnails): a
 * caller may give synchronous ones (the sealer gives node:crypto's).
 */
export interface CheckPrimitives {
  /** `hash`: SHA-1, SHA-256, SHA-384 or SHA-512. */
  digest(hash: string, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Whether `signature` (r and s, each as long as the curve's order, as IEEE P1363 and WebCrypto write them) signs `data` under the key of `spki` (DER). */
  verifyEcdsa(spki: Uint8Array, hash: string, signature: Uint8Array, data: Uint8Array): boolean | Promise<boolean>;
}

const webCryptoKeys = boundedCache<string, Promise<CryptoKey | null>>({ maxEntries: REUSE_LIMIT });

/** WebCrypto: the digests of a check without reuse, and everything a check with reuse computes unless its caller gives other primitives. */
const webCryptoPrimitives: CheckPrimitives = {
  digest: async (hash, data) => new Uint8Array(await crypto.subtle.digest(hash, buffer(data))),
  async verifyEcdsa(spki, hash, signature, data) {
    const key = await webCryptoKeys.getOrSet(hex(spki), async () => {
      const info = new pkijs.PublicKeyInfo({ schema: asn1js.fromBER(buffer(spki)).result });
      const curve = pkijs.ECNamedCurves.find((info.algorithm.algorithmParams as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString() ?? "");
      return curve ? crypto.subtle.importKey("spki", buffer(spki), { name: "ECDSA", namedCurve: curve.name }, false, ["verify"]) : null;
    });
    return key !== null && crypto.subtle.verify({ name: "ECDSA", hash }, key, buffer(signature), buffer(data));
  },
};

const SHA1_OID = "1.3.14.3.2.26";
const SHA256_OID = "2.16.840.1.101.3.4.2.1";
const HASHES: Record<string, string> = {
  [SHA1_OID]: "SHA-1",
  [SHA256_OID]: "SHA-256",
  "2.16.840.1.101.3.4.2.2": "SHA-384",
  "2.16.840.1.101.3.4.2.3": "SHA-512",
};
/** ecdsa-with-SHA256, -384 and -512: the signature algorithms a check verifies with `CheckPrimitives.verifyEcdsa`. */
const ECDSA_HASHES: Record<string, string> = { "1.2.840.10045.4.3.2": "SHA-256", "1.2.840.10045.4.3.3": "SHA-384", "1.2.840.10045.4.3.4": "SHA-512" };
const TIME_STAMPING_OID = "1.3.6.1.5.5.7.3.8";
const EXTENDED_KEY_USAGE_OID = "2.5.29.37";
const SIGNING_CERTIFICATE_OID = "1.2.840.113549.1.9.16.2.12";
const SIGNING_CERTIFICATE_V2_OID = "1.2.840.113549.1.9.16.2.47";
const MESSAGE_DIGEST_OID = "1.2.840.113549.1.9.4";
const SUBJECT_KEY_IDENTIFIER_OID = "2.5.29.14";
const RSA_ENCRYPTION_OID = "1.2.840.113549.1.1.1";
const EC_PUBLIC_KEY_OID = "1.2.840.10045.2.1";

const HEX_DIGITS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
/** Lower-case hex; a lookup per byte, as a check keys its caches by certificates' DER. */
export function hex(bytes: ArrayBuffer | Uint8Array): string {
  let text = "";
  for (const byte of bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)) text += HEX_DIGITS[byte];
  return text;
}
const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The most certificates a chain or trust anchor holds (a real one has 1 to 3). One of thousands (forger session 7,
 * G15: chain.pem, c2pa-trust-anchor.pem the genuine chain repeated 1,500 times, ~3,000 certificates parsed on every
 * public read, past a Worker's CPU limit) is not a chain: the verification reads it as holding none.
 */
export const MAX_CHAIN_CERTIFICATES = 10;

/**
 * The DER of every certificate in a PEM bundle. A block whose body is not base64 holds no certificate and is skipped
 * (forger session 7, G10): a damaged bundle reads as one without it, so the checks needing it fail, never a throw.
 * A bundle of more than `atMost` blocks holds none, read no further (G15): the same failing checks. Unbounded for a
 * list the operator configures (the sealer's qualified certificates), never for one read from storage.
 */
export function pemCertificatesDer(pem: string, atMost = Number.POSITIVE_INFINITY): Uint8Array[] {
  const blocks: string[] = [];
  for (const [block] of pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g)) {
    if (blocks.length === atMost) return [];
    blocks.push(block);
  }
  return blocks.flatMap((block) => {
    const body = block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) return [];
    return [Uint8Array.from(atob(body), (c) => c.charCodeAt(0))];
  });
}

/** An INTEGER's content bytes as `openssl ts -reply -text` prints a serial: `0x`, upper-case hex, no leading zeros. */
function serialText(serial: Uint8Array): string {
  let start = 0;
  while (start < serial.length - 1 && serial[start] === 0) start++;
  return `0x${hex(serial.subarray(start)).toUpperCase()}`;
}

function certifiedForTimestamping(certificate: pkijs.Certificate): boolean {
  const usage = certificate.extensions?.find((extension) => extension.extnID === EXTENDED_KEY_USAGE_OID);
  const purposes = (usage?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  return usage?.critical === true && purposes.length === 1 && purposes[0] === TIME_STAMPING_OID;
}

/** Without this binding a signer could be swapped for another certificate holding the same key. */
async function bindsCertificate(signerInfo: pkijs.SignerInfo, certificateDer: Uint8Array, primitives: CheckPrimitives): Promise<boolean> {
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
  return bytesEqual(certHash.valueBlock.valueHexView, await primitives.digest(hash, certificateDer));
}

/** The certificate a SignerInfo's `sid` names (issuer and serial number, or subject key identifier). */
export function namedBy(signerInfo: pkijs.SignerInfo, candidates: pkijs.Certificate[]): pkijs.Certificate | null {
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
  tstInfoDer: Uint8Array,
  reuse?: TimestampCheckReuse,
): Promise<boolean> {
  const attributes = signerInfo.signedAttrs;
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  // RFC 3161 §2.4.2: the token's SignerInfo always carries signed attributes (content type, digest, ESS).
  const digestAttribute = attributes?.attributes.find((a) => a.type === MESSAGE_DIGEST_OID)?.values[0] as asn1js.OctetString | undefined;
  if (!attributes || !hash || !(digestAttribute instanceof asn1js.OctetString)) return false;
  const primitives = reuse?.primitives ?? webCryptoPrimitives;
  if (!bytesEqual(digestAttribute.valueBlock.valueHexView, await primitives.digest(hash, tstInfoDer))) return false;
  // `encodedValue` is the attributes' DER re-tagged as a SET, which is what was signed (RFC 5652 §5.4).
  const ecdsaHash = ECDSA_HASHES[signerInfo.signatureAlgorithm.algorithmId];
  if (reuse && ecdsaHash && signer.subjectPublicKeyInfo.algorithm.algorithmId === EC_PUBLIC_KEY_OID) {
    // What pkijs's engine does for an ECDSA signer: r and s read from the signature by asn1js and pkijs, then
    // verified, here with the caller's primitives and the key's DER encoded once.
    const curve = pkijs.ECNamedCurves.find(
      (signer.subjectPublicKeyInfo.algorithm.algorithmParams as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString() ?? "",
    );
    const signature = asn1js.fromBER(signerInfo.signature.valueBlock.valueHexView, { parseEmbedded: false });
    if (!curve || signature.offset === -1) return false;
    const rAndS = new Uint8Array(pkijs.createECDSASignatureFromCMS(signature.result, curve.size));
    return rAndS.length === curve.size * 2 && primitives.verifyEcdsa(reuse.publicKeyInfo(signer), ecdsaHash, rAndS, new Uint8Array(attributes.encodedValue));
  }
  const engine = pkijs.getCrypto(true);
  return signerInfo.signatureAlgorithm.algorithmId === RSA_ENCRYPTION_OID
    ? engine.verifyWithPublicKey(attributes.encodedValue, signerInfo.signature, signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm, hash)
    : engine.verifyWithPublicKey(attributes.encodedValue, signerInfo.signature, signer.subjectPublicKeyInfo, signerInfo.signatureAlgorithm);
}

/**
 * One DER element read by asn1js, as pkijs's `fromBER` reads it (bytes after it ignored), but without asn1js's
 * speculative reading of every OCTET and BIT STRING's contents as DER: pkijs reads what it needs of those
 * (the TSTInfo, extensions, keys) from their bytes, so that reading was a second parse of the TSTInfo.
 */
function derOf(bytes: Uint8Array): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes, { parseEmbedded: false });
  if (parsed.offset === -1) throw new RangeError(`unreadable DER: ${parsed.result.error}`);
  return parsed.result;
}

const selfSigned = (cert: pkijs.Certificate) => cert.subject.isEqual(cert.issuer);

/** The names under which pkijs's SignedData schema gives the fields a check reads. */
const SIGNED_DATA_FIELDS = {
  encapContentInfo: "signedData.encapContentInfo",
  certificates: "signedData.certificates",
  crls: "signedData.crls",
  signerInfos: "signedData.signerInfos",
} as const;
/** pkijs's SignedData schema, built on first use. */
const signedDataSchema = once(
  (): asn1js.Sequence =>
    pkijs.SignedData.schema({
      names: {
        encapContentInfo: { names: { blockName: SIGNED_DATA_FIELDS.encapContentInfo } },
        certificates: SIGNED_DATA_FIELDS.certificates,
        crls: { names: { crls: SIGNED_DATA_FIELDS.crls } },
        signerInfos: SIGNED_DATA_FIELDS.signerInfos,
      },
    }),
);

/**
 * What a check reads of a token's SignedData: its encapsulated content, its SignerInfos and the certificates
 * it carries. The whole SignedData is matched against pkijs's own SignedData schema, as `new
 * pkijs.SignedData({ schema })` matches it, and each field read is built by its pkijs class. That
 * constructor builds the schema anew for every token, with the schemas of every certificate and revocation
 * list CMS allows (attribute certificates, general names, CRLs): some 1.2 ms of a check's 2-3 ms, and most of
 * the code a freshly started sealer runs for it. asn1js's matching does not change a schema, so it is built
 * once here. With `reuse`, each certificate is parsed once per distinct DER: the same signer's certificate
 * comes with every token of an authority.
 */
function signedDataOf(
  content: asn1js.AsnType,
  reuse?: TimestampCheckReuse,
): { encapsulated: pkijs.EncapsulatedContentInfo; signerInfos: pkijs.SignerInfo[]; certificates: Uint8Array[]; carried: pkijs.Certificate[] } {
  // As pkijs does, the matched fields are named on the token's own freshly parsed element.
  const matched = asn1js.compareSchema(content, content, signedDataSchema());
  if (!matched.verified) throw new RangeError("not a SignedData");
  const fields = matched.result as unknown as Record<string, unknown>;
  const choices = (fields[SIGNED_DATA_FIELDS.certificates] as asn1js.Constructed | undefined)?.valueBlock.value ?? [];
  // A plain SEQUENCE is a Certificate. The other CertificateChoices (attribute certificates, other formats) are
  // not certificates to check with, but pkijs reads them whole: so that this reading refuses what pkijs's
  // SignedData refuses, a set holding any is read by pkijs's CertificateSet, and so is each revocation list.
  if (choices.some((choice) => choice.idBlock.tagClass !== 1)) new pkijs.CertificateSet({ schema: new asn1js.Set({ value: choices }) });
  for (const revocation of (fields[SIGNED_DATA_FIELDS.crls] as asn1js.AsnType[] | undefined) ?? []) revocationInfo(revocation);
  const plain = choices.filter((choice) => choice instanceof asn1js.Sequence);
  const certificates = plain.map((choice) => new Uint8Array(choice.valueBeforeDecodeView));
  return {
    encapsulated: new pkijs.EncapsulatedContentInfo({ schema: fields[SIGNED_DATA_FIELDS.encapContentInfo] }),
    signerInfos: ((fields[SIGNED_DATA_FIELDS.signerInfos] as asn1js.AsnType[] | undefined) ?? []).map(
      (signerInfo) => new pkijs.SignerInfo({ schema: signerInfo }),
    ),
    certificates,
    carried: reuse ? certificates.map((der) => reuse.certificate(der)) : plain.map((choice) => new pkijs.Certificate({ schema: choice })),
  };
}

/** A RevocationInfoChoice read as pkijs's SignedData reads it: a CRL, or an OtherRevocationInfoFormat re-tagged as a SEQUENCE. */
function revocationInfo(choice: asn1js.AsnType): pkijs.CertificateRevocationList | pkijs.OtherRevocationInfoFormat {
  if (choice.idBlock.tagClass === 1) return new pkijs.CertificateRevocationList({ schema: choice });
  choice.idBlock.tagClass = 1;
  choice.idBlock.tagNumber = 16;
  return new pkijs.OtherRevocationInfoFormat({ schema: choice });
}

/** The names under which pkijs's TSTInfo schema gives the fields a check reads. */
const TST_INFO_FIELDS = {
  policy: "tstInfo.policy",
  messageImprint: "tstInfo.messageImprint",
  serialNumber: "tstInfo.serialNumber",
  genTime: "tstInfo.genTime",
  nonce: "tstInfo.nonce",
} as const;

/** pkijs's TSTInfo schema, built on first use. */
const tstInfoSchema = once(
  (): asn1js.Sequence =>
    pkijs.TSTInfo.schema({
      names: {
        policy: TST_INFO_FIELDS.policy,
        messageImprint: { names: { blockName: TST_INFO_FIELDS.messageImprint } },
        serialNumber: TST_INFO_FIELDS.serialNumber,
        genTime: TST_INFO_FIELDS.genTime,
        nonce: TST_INFO_FIELDS.nonce,
      },
    }),
);

/**
 * What a check reads of a TSTInfo, read as `new pkijs.TSTInfo({ schema })` reads it, against pkijs's TSTInfo
 * schema built once (building it, with a GeneralName's for the tsa, was about a fifth of a check; building the
 * tsa's GeneralName once more, another part). The whole TSTInfo is matched by that schema, accuracy, tsa and
 * extensions included; pkijs would then build those three into objects, which cannot refuse what the schema
 * matched, and nothing here reads them.
 */
function tstInfoOf(der: Uint8Array): {
  policy: string;
  messageImprint: pkijs.MessageImprint;
  serialNumber: asn1js.Integer;
  genTime: Date;
  nonce?: asn1js.Integer;
} {
  const tstInfo = derOf(der);
  const matched = asn1js.compareSchema(tstInfo, tstInfo, tstInfoSchema());
  if (!matched.verified) throw new RangeError("not a TSTInfo");
  const fields = matched.result as unknown as Record<string, unknown>;
  return {
    policy: (fields[TST_INFO_FIELDS.policy] as asn1js.ObjectIdentifier).valueBlock.toString(),
    messageImprint: new pkijs.MessageImprint({ schema: fields[TST_INFO_FIELDS.messageImprint] }),
    serialNumber: fields[TST_INFO_FIELDS.serialNumber] as asn1js.Integer,
    genTime: (fields[TST_INFO_FIELDS.genTime] as asn1js.GeneralizedTime).toDate(),
    nonce: fields[TST_INFO_FIELDS.nonce] as asn1js.Integer | undefined,
  };
}

/** `build`'s value, made on the first call: asn1js's matching does not change a schema, so one serves every token. */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    if (built === undefined) built = build();
    return built;
  };
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
    certificates: [],
  };
  try {
    const outer = derOf(tsr);
    // A bare TimeStampToken (a ContentInfo: its first element is an OID), as an archive timestamp holds it.
    const bare = (outer as asn1js.Sequence).valueBlock.value[0] instanceof asn1js.ObjectIdentifier;
    const response = bare ? null : new pkijs.TimeStampResp({ schema: outer });
    const token = bare ? new pkijs.ContentInfo({ schema: outer }) : response!.timeStampToken;
    if ((response && response.status.status !== 0 && response.status.status !== 1) || !token) return result;
    result.granted = true;
    result.token = bare ? tsr.slice() : new Uint8Array((outer as asn1js.Sequence).valueBlock.value[1]!.valueBeforeDecodeView);
    const { encapsulated, signerInfos, certificates, carried } = signedDataOf(token.content, options.reuse);
    result.certificates = certificates;
    const content = encapsulated.eContent;
    if (!content) return result;
    const tstInfoDer = new Uint8Array(content.getValue());
    const tstInfo = tstInfoOf(tstInfoDer);
    result.genTime = tstInfo.genTime.toISOString();
    result.serial = serialText(tstInfo.serialNumber.valueBlock.valueHexView);
    result.policy = tstInfo.policy;
    result.nonceHex = tstInfo.nonce ? hex(tstInfo.nonce.valueBlock.valueHexView) : null;
    const primitives = options.reuse?.primitives ?? webCryptoPrimitives;
    const imprintHash = HASHES[tstInfo.messageImprint.hashAlgorithm.algorithmId];
    result.imprintMatches =
      imprintHash !== undefined &&
      imprintHash !== "SHA-1" &&
      bytesEqual(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView, options.imprint ?? (await primitives.digest(imprintHash, data)));

    const supplied = options.reuse
      ? options.reuse.certificates(chainPem)
      : pemCertificatesDer(chainPem, MAX_CHAIN_CERTIFICATES).map((der) => pkijs.Certificate.fromBER(buffer(der)));
    const signerInfo = signerInfos[0];
    const signer = signerInfo ? namedBy(signerInfo, [...carried, ...supplied]) : null;
    if (!signerInfo || !signer) return result;
    result.signerCertificate = options.reuse ? options.reuse.encoded(signer) : new Uint8Array(signer.toSchema().toBER());
    result.signatureValid = await signatureVerifies(signerInfo, signer, tstInfoDer, options.reuse).catch(() => false);
    result.signerCertifiedForTimestamping = certifiedForTimestamping(signer);
    result.signerCertificateBound = await bindsCertificate(signerInfo, result.signerCertificate, primitives);
    result.signerNotAfter = signer.notAfter.value.toISOString();
    const checkDate = options.at ?? tstInfo.genTime;
    // The chain is the same for every token an authority signs with the same certificates: the anchors, the
    // signer, and what the token carries, all part of the key.
    const reuse = options.reuse;
    const chainKey = reuse ? [chainPem, ...[signer, ...carried].map((cert) => reuse.key(cert))].join(" ") : "";
    const knownRoot = reuse?.trustedRoot(chainKey, checkDate) ?? null;
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
      reuse?.rememberTrusted(chainKey, chain.certificatePath!, result.rootCertificate);
    }
  } catch {
    return result;
  }
  return result;
}
