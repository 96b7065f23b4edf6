import { createHash, createPrivateKey, randomBytes, sign, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { TSA_POLICIES } from "../pki/ensure-local-pki.ts";
import { boundedCache } from "../../../shared/bounded-cache.ts";
import type { TimestampAuthority } from "./authority.ts";
import { context, generalizedTime, integer, objectIdentifier, octetString, sequence, set, smallInteger, tlv } from "./der.ts";

const der = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----(BEGIN|END) [A-Z ]+-----|\s+/g, ""), "base64"));
const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash("sha256").update(bytes).digest());

/**
 * The simulated authorities (test proofs; live proofs without TSA_URL), answering in process: the same
 * tokens `openssl ts -reply` made (SHA-256, the PKI folder's key and certificate, its policy, the ESS
 * signing-certificate attribute, the request's nonce, the certificate when asked), without a process per
 * timestamp (15-50 ms each, one at a time because of openssl's serial file). Serials are random 128-bit
 * numbers, unique without shared state. Every token is still checked like a real authority's, and the
 * proof's own token by `openssl ts -verify` (confirm-with-openssl.ts).
 */
export function simulatedAuthority(pkiDir: string, name: keyof typeof TSA_POLICIES, displayName: string): TimestampAuthority {
  const certificateDer = der(readFileSync(join(pkiDir, `${name}.pem`), "utf8"));
  const signer: TokenSigner = {
    certificate: pkijs.Certificate.fromBER(certificateDer.slice().buffer as ArrayBuffer),
    certificateDer,
    key: createPrivateKey(readFileSync(join(pkiDir, `${name}.pk8`), "utf8")),
  };
  return {
    name: displayName,
    chainPem: readFileSync(join(pkiDir, `${name}-root.pem`), "utf8"),
    qualifiedCertsPem: "",
    async respond(requestDer, signal) {
      signal?.throwIfAborted();
      const request = timeStampRequestFields(requestDer);
      const serialNumber = randomBytes(16);
      serialNumber[0] = (serialNumber[0]! & 0x3f) | 0x40;
      return signTimestampResponse(request, signer, {
        policy: TSA_POLICIES[name],
        serialNumber,
        essCertId: true,
        includeCertificate: request.certReq,
      });
    },
  };
}

/** What a token answering a TimeStampReq takes from it. */
export interface TimeStampRequestFields {
  /** The MessageImprint's DER, copied into the TSTInfo as it is. */
  messageImprint: Uint8Array;
  /** The nonce INTEGER's content bytes, echoed byte for byte. */
  nonce: Uint8Array | null;
  certReq: boolean;
}

/** The names under which pkijs's TimeStampReq schema gives the fields an answer takes. */
const REQUEST_FIELDS = { messageImprint: "request.messageImprint", nonce: "request.nonce", certReq: "request.certReq" } as const;
let builtRequestSchema: asn1js.Sequence | undefined;

function requestSchema(): asn1js.Sequence {
  if (builtRequestSchema !== undefined) return builtRequestSchema;
  const schema: asn1js.Sequence = pkijs.TimeStampReq.schema({
    names: { messageImprint: { names: { blockName: REQUEST_FIELDS.messageImprint } }, nonce: REQUEST_FIELDS.nonce, certReq: REQUEST_FIELDS.certReq },
  });
  builtRequestSchema = schema;
  return schema;
}

/**
 * A TimeStampReq (RFC 3161 §2.4.1) read by asn1js and matched against pkijs's own TimeStampReq schema, built
 * once, as the timestamp checks match a token's SignedData (shared/timestamp-check.ts): `new
 * pkijs.TimeStampReq` would build that schema again for each of a proof's 11 requests. Bytes after the
 * request are refused.
 */
export function timeStampRequestFields(der: Uint8Array): TimeStampRequestFields {
  const parsed = asn1js.fromBER(der, { parseEmbedded: false });
  if (parsed.offset !== der.length) throw new RangeError("not one TimeStampReq");
  const matched = asn1js.compareSchema(parsed.result, parsed.result, requestSchema());
  if (!matched.verified) throw new RangeError("not a TimeStampReq");
  const fields = matched.result as unknown as Record<string, asn1js.AsnType | undefined>;
  const nonce = fields[REQUEST_FIELDS.nonce] as asn1js.Integer | undefined;
  return {
    messageImprint: new Uint8Array(fields[REQUEST_FIELDS.messageImprint]!.valueBeforeDecodeView),
    nonce: nonce ? new Uint8Array(nonce.valueBlock.valueHexView) : null,
    certReq: (fields[REQUEST_FIELDS.certReq] as asn1js.Boolean | undefined)?.valueBlock.value === true,
  };
}

/** The certificate and private key (ECDSA P-256) a token is signed with. */
export interface TokenSigner {
  certificate: pkijs.Certificate;
  certificateDer: Uint8Array;
  key: KeyObject;
}

const SHA256 = sequence(objectIdentifier("2.16.840.1.101.3.4.2.1"), new Uint8Array([0x05, 0x00]));
const ECDSA_WITH_SHA256 = sequence(objectIdentifier("1.2.840.10045.4.3.2"));
const SIGNED_DATA = objectIdentifier("1.2.840.113549.1.7.2");
const TST_INFO = objectIdentifier("1.2.840.113549.1.9.16.1.4");
const attribute = (type: string, value: Uint8Array) => sequence(objectIdentifier(type), set(value));
const CONTENT_TYPE_TST_INFO = attribute("1.2.840.113549.1.9.3", TST_INFO);

/** What a token says of its signer, the same in every token: encoded once per signer. */
interface SignerParts {
  issuerAndSerial: Uint8Array;
  /** TSTInfo `tsa` ([0] GeneralName, directoryName [4]): the signer's subject. */
  tsaName: Uint8Array;
  /** SigningCertificateV2 { certs: [ESSCertIDv2 { certHash }] } with the default SHA-256. */
  essAttribute: Uint8Array;
  /** SignedData `certificates` ([0] IMPLICIT SET OF Certificate). */
  certificates: Uint8Array;
}

/** The simulated authorities' signers (the test and live ones, a test's rogue one: 8 kept), for the process's life. */
const partsBySigner = boundedCache<TokenSigner, SignerParts>({ maxEntries: 8 });

function signerParts(signer: TokenSigner): SignerParts {
  return partsBySigner.getOrSet(signer, () => {
    const { certificate } = signer;
    return {
      issuerAndSerial: sequence(new Uint8Array(certificate.issuer.toSchema().toBER()), new Uint8Array(certificate.serialNumber.toBER())),
      // The optional TSTInfo name (RFC 3161 §2.4.2): without it `openssl ts -reply -text` prints
      // "TSA: unspecified" and the name is only in the certificate the token may carry.
      tsaName: context(0, context(4, new Uint8Array(certificate.subject.toSchema().toBER()))),
      essAttribute: attribute("1.2.840.113549.1.9.16.2.47", sequence(sequence(sequence(octetString(sha256(signer.certificateDer)))))),
      certificates: context(0, signer.certificateDer),
    };
  });
}

/**
 * A granted TimeStampResp answering `request`: a TSTInfo with the request's imprint and nonce and the
 * signer's subject as its TSA name, signed (SHA-256, ECDSA) with the content-type, message-digest and,
 * when `essCertId`, the ESS signing-certificate attributes. The one place tokens are built, for the
 * simulated authorities and the test's rogue one, so the encoding c2pa-rs needs is written once (among
 * it: the eContent a primitive OCTET STRING, which c2pa-rs requires: "timestamp response had no TstInfo").
 */
export function signTimestampResponse(
  request: TimeStampRequestFields,
  signer: TokenSigner,
  token: { policy: string; serialNumber: Uint8Array; essCertId: boolean; includeCertificate: boolean; genTime?: Date },
): Uint8Array {
  const parts = signerParts(signer);
  const tstInfo = sequence(
    smallInteger(1),
    objectIdentifier(token.policy),
    request.messageImprint,
    integer(token.serialNumber),
    generalizedTime(token.genTime ?? new Date()),
    // The nonce echoed byte for byte, as the requester compares it.
    ...(request.nonce === null ? [] : [tlv(0x02, request.nonce)]),
    parts.tsaName,
  );
  const signedAttributes = [
    CONTENT_TYPE_TST_INFO,
    attribute("1.2.840.113549.1.9.4", octetString(sha256(tstInfo))),
    ...(token.essCertId ? [parts.essAttribute] : []),
  ];
  // What is signed is the attributes' DER as a SET (RFC 5652 §5.4); the SignerInfo carries them as [0].
  const signature = sign("sha256", set(...signedAttributes), { key: signer.key, dsaEncoding: "der" });
  const signerInfo = sequence(smallInteger(1), parts.issuerAndSerial, SHA256, context(0, ...signedAttributes), ECDSA_WITH_SHA256, octetString(signature));
  const signedData = sequence(
    smallInteger(3),
    set(SHA256),
    sequence(TST_INFO, context(0, octetString(tstInfo))),
    ...(token.includeCertificate ? [parts.certificates] : []),
    set(signerInfo),
  );
  return sequence(sequence(smallInteger(0)), sequence(SIGNED_DATA, context(0, signedData)));
}
