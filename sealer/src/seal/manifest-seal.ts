import { createHash, sign } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { SealIdentity } from "./seal-identity.ts";
import { boundedCache } from "../../../shared/bounded-cache.ts";
import { SEALED_REVOCATION_FILES_OID } from "../../../shared/revocation-data.ts";

const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  sha256: "2.16.840.1.101.3.4.2.1",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
} as const;

const bytes = (view: ArrayBuffer | Uint8Array) => (view instanceof Uint8Array ? view : new Uint8Array(view));
const buffer = (view: Uint8Array) => view.slice().buffer as ArrayBuffer;
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());

/**
 * ESS signingCertificateV2 (RFC 5035): the SHA-256 of the sealing certificate and its issuer and serial,
 * so that the signature names the certificate it was made with and no other certificate of the same key
 * can be put in its place. The hash algorithm is SHA-256, the default, so DER leaves it out.
 */
function signingCertificateV2(certificateDer: Uint8Array, certificate: pkijs.Certificate): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames holding one directoryName ([4], explicit: Name is a CHOICE): the issuer as the certificate encodes it.
      new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [certificate.issuer.toSchema()] })] }),
      certificate.serialNumber,
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: buffer(sha256(certificateDer)) }), issuerSerial] });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

/** What a seal takes from its identity and never changes: parsed once per identity (parsing a certificate is most of a seal's cost). */
interface PreparedIdentity {
  certificates: pkijs.Certificate[];
  sid: pkijs.IssuerAndSerialNumber;
  signingCertificate: pkijs.Attribute;
}
/** The live and the test identity of the process's configuration (4 kept), for the process's life. */
const preparedIdentities = boundedCache<SealIdentity, PreparedIdentity>({ maxEntries: 4 });

function prepared(identity: SealIdentity): PreparedIdentity {
  return preparedIdentities.getOrSet(identity, () => {
    const certificate = pkijs.Certificate.fromBER(buffer(identity.certificateDer));
    return {
      certificates: [certificate, ...identity.intermediatesDer.map((der) => pkijs.Certificate.fromBER(buffer(der)))],
      sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
      signingCertificate: new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2(identity.certificateDer, certificate)] }),
    };
  });
}

/** The encodings of a SET OF in DER order (X.690 11.6: ascending, as octet strings). */
function derSetOrder<T extends { toSchema(): asn1js.AsnType }>(items: T[]): T[] {
  const encoded = items.map((item) => ({ item, der: bytes(item.toSchema().toBER()) }));
  encoded.sort((a, b) => Buffer.compare(a.der, b.der));
  return encoded.map(({ item }) => item);
}

/** The sealed revocation files attribute (docs/adr/0049): each file of `revocation/` by its package name and SHA-256. */
function sealedFilesAttribute(files: { name: string; body: string | Uint8Array }[]): pkijs.Attribute {
  const listed = files.map(
    ({ name, body }) =>
      new asn1js.Sequence({
        value: [
          new asn1js.Utf8String({ value: name }),
          new asn1js.OctetString({ valueHex: buffer(sha256(typeof body === "string" ? new TextEncoder().encode(body) : body)) }),
        ],
      }),
  );
  return new pkijs.Attribute({ type: SEALED_REVOCATION_FILES_OID, values: [new asn1js.Sequence({ value: listed })] });
}

/**
 * manifest.p7s: a detached CMS SignedData (RFC 5652) over `content` (the exact bytes of manifest.json), in
 * DER, CAdES-B: the signed attributes are contentType (id-data), messageDigest (SHA-256 of the content),
 * signingTime, ESS signingCertificateV2 and the SHA-256 of every revocation file the package holds
 * (`revocationFiles`, docs/adr/0049: written after the token, so only the seal can cover them); ECDSA P-256
 * with SHA-256 by the identity's key; the sealing certificate and its intermediates (never the root) in
 * `certificates`. The root a verifier uses comes from outside the package (GET /v1/public/trust-anchors,
 * docs/trust-anchors.md):
 * `openssl cms -verify -binary -inform DER -in manifest.p7s -content manifest.json -CAfile <root> -purpose any`.
 */
export function sealManifest(
  content: Uint8Array,
  identity: SealIdentity,
  signingTime: Date,
  revocationFiles: { name: string; body: string | Uint8Array }[],
): Uint8Array {
  const { certificates, sid, signingCertificate } = prepared(identity);
  const attributes = derSetOrder([
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: signingTime })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: buffer(sha256(content)) })] }),
    signingCertificate,
    sealedFilesAttribute(revocationFiles),
  ]);
  // What is signed is the attributes' DER as a SET (RFC 5652 5.4), not the [0] they are sent under.
  const signedAttributes = new asn1js.Set({ value: attributes.map((attribute) => attribute.toSchema()) }).toBER();
  const signature = sign("sha256", bytes(signedAttributes), identity.key);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid,
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSha256 }),
    signature: new asn1js.OctetString({ valueHex: buffer(new Uint8Array(signature)) }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    // Detached: the content is manifest.json beside it, so eContent is absent.
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates,
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return bytes(contentInfo.toSchema().toBER());
}
