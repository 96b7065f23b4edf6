import { createHash, sign } from "node:crypto";
import * as pkijs from "pkijs";
import type { SealIdentity } from "../seal/seal-identity.ts";
import { context, objectIdentifier, octetString, sequence, set, smallInteger } from "../tsa/der.ts";

const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
  sha256: "2.16.840.1.101.3.4.2.1",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
} as const;

const SHA256 = sequence(objectIdentifier(OID.sha256));
const attribute = (type: string, value: Uint8Array) => sequence(objectIdentifier(type), set(value));
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());

/**
 * The CMS of a PAdES signature (ETSI EN 319 142-1, /SubFilter /ETSI.CAdES.detached), written as DER directly
 * (tsa/der.ts, as the simulated authority writes its tokens): SignedData, detached, over the SHA-256 `digest`
 * of the signature's byte range, signed by the sealing identity with the signed attributes PAdES requires
 * (contentType id-data, messageDigest, ESS signingCertificateV2 with the certificate's hash and, as CAdES
 * baseline advises, no issuerSerial) and no signingTime (PAdES forbids it: the time is the signature
 * timestamp's); then, as an unsigned attribute, the signature timestamp that `timestamp` obtains over the
 * signature value (RFC 3161 appendix A), which makes it B-T. The sealing certificate and its intermediates
 * are carried, never the root.
 */
export async function padesSignedData(
  digest: Uint8Array,
  identity: SealIdentity,
  timestamp: (signatureValue: Uint8Array) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const certificate = pkijs.Certificate.fromBER(identity.certificateDer.slice().buffer as ArrayBuffer);
  const issuerAndSerial = sequence(new Uint8Array(certificate.issuer.toSchema().toBER()), new Uint8Array(certificate.serialNumber.toBER()));
  // In DER order (X.690 11.6): the encodings differ first in their length octet, 0x18, 0x2f, 0x37.
  const signedAttributes = [
    attribute(OID.contentType, objectIdentifier(OID.data)),
    attribute(OID.messageDigest, octetString(digest)),
    attribute(OID.signingCertificateV2, sequence(sequence(sequence(octetString(sha256(identity.certificateDer)))))),
  ];
  // What is signed is the attributes' DER as a SET (RFC 5652 5.4); the SignerInfo carries them as [0].
  const signatureValue = new Uint8Array(sign("sha256", set(...signedAttributes), { key: identity.key, dsaEncoding: "der" }));
  const token = await timestamp(signatureValue);
  const signerInfo = sequence(
    smallInteger(1),
    issuerAndSerial,
    SHA256,
    context(0, ...signedAttributes),
    sequence(objectIdentifier(OID.ecdsaWithSha256)),
    octetString(signatureValue),
    context(1, attribute(OID.signatureTimeStampToken, token)),
  );
  const signedData = sequence(
    smallInteger(1),
    set(SHA256),
    sequence(objectIdentifier(OID.data)),
    context(0, identity.certificateDer, ...identity.intermediatesDer),
    set(signerInfo),
  );
  return sequence(objectIdentifier(OID.signedData), context(0, signedData));
}
