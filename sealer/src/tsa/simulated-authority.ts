import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { TSA_POLICIES } from "../pki/ensure-local-pki.ts";
import type { TimestampAuthority } from "./authority.ts";

const der = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----(BEGIN|END) [A-Z ]+-----|\s+/g, ""), "base64"));
const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()));

/**
 * The simulated authorities (test proofs; live proofs without TSA_URL), answering in process with pkijs:
 * the same tokens `openssl ts -reply` made (SHA-256, the PKI folder's key and certificate, its policy, the
 * ESS signing-certificate attribute, the request's nonce, the certificate when asked), without a process
 * per timestamp (15-50 ms each, one at a time because of openssl's serial file). Serials are random 
 * 128-bit numbers, unique without shared state. Every token is still checked like a real authority's, and
 * the proof's own token by `openssl ts -verify` (confirm-with-openssl.ts).
 */
export function simulatedAuthority(pkiDir: string, name: keyof typeof TSA_POLICIES, displayName: string): TimestampAuthority {
  const certificateDer = der(readFileSync(join(pkiDir, `${name}.pem`), "utf8"));
  const certificate = pkijs.Certificate.fromBER(certificateDer.slice().buffer as ArrayBuffer);
  const key = crypto.subtle.importKey("pkcs8", der(readFileSync(join(pkiDir, `${name}.pk8`), "utf8")), { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  return {
    name: displayName,
    chainPem: readFileSync(join(pkiDir, `${name}-root.pem`), "utf8"),
    qualifiedCertsPem: "",
    async respond(requestDer, signal) {
      signal?.throwIfAborted();
      const request = pkijs.TimeStampReq.fromBER(requestDer.slice().buffer as ArrayBuffer);
      const serialNumber = randomBytes(16);
      serialNumber[0] = (serialNumber[0]! & 0x3f) | 0x40;
      return signTimestampResponse(request, { certificate, certificateDer, key: await key }, {
        policy: TSA_POLICIES[name],
        serialNumber,
        essCertId: true,
        includeCertificate: request.certReq === true,
      });
    },
  };
}

/** The certificate and private key (ECDSA P-256) a token is signed with. */
export interface TokenSigner {
  certificate: pkijs.Certificate;
  certificateDer: Uint8Array;
  key: CryptoKey;
}

/**
 * A granted TimeStampResp answering `request`: a TSTInfo with the request's imprint and nonce and the
 * signer's subject as its TSA name, signed (SHA-256) with the content-type, message-digest and, when
 * `essCertId`, the ESS signing-certificate attributes. The one place tokens are built, for the simulated authorities and the test's rogue one, so
 * the encoding c2pa-rs needs is written once.
 */
export async function signTimestampResponse(
  request: pkijs.TimeStampReq,
  signer: TokenSigner,
  token: { policy: string; serialNumber: Uint8Array; essCertId: boolean; includeCertificate: boolean },
): Promise<Uint8Array> {
  const content = new pkijs.TSTInfo({
    version: 1,
    policy: token.policy,
    messageImprint: request.messageImprint,
    serialNumber: new asn1js.Integer({ valueHex: token.serialNumber }),
    genTime: new Date(),
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    // The optional TSTInfo name (RFC 3161 §2.4.2): without it `openssl ts -reply -text` prints
    // "TSA: unspecified" and the name is only in the certificate the token may carry.
    tsa: new pkijs.GeneralName({ type: 4, value: signer.certificate.subject }),
  })
    .toSchema()
    .toBER();
  const encapsulated = new pkijs.EncapsulatedContentInfo({ eContentType: pkijs.id_eContentType_TSTInfo });
  // Set after construction: pkijs's constructor turns it into a constructed (chunked) OCTET STRING,
  // which c2pa-rs cannot read ("timestamp response had no TstInfo"); DER wants it primitive.
  encapsulated.eContent = new asn1js.OctetString({ valueHex: content });
  const { certificate } = signer;
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo: encapsulated,
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: "1.2.840.113549.1.9.3", values: [new asn1js.ObjectIdentifier({ value: pkijs.id_eContentType_TSTInfo })] }),
            new pkijs.Attribute({ type: "1.2.840.113549.1.9.4", values: [new asn1js.OctetString({ valueHex: await sha256(new Uint8Array(content)) })] }),
            // SigningCertificateV2 { certs: [ESSCertIDv2 { certHash }] } with the default SHA-256.
            ...(token.essCertId
              ? [
                  new pkijs.Attribute({
                    type: "1.2.840.113549.1.9.16.2.47",
                    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: await sha256(signer.certificateDer) })] })] })] })],
                  }),
                ]
              : []),
          ],
        }),
      }),
    ],
    certificates: token.includeCertificate ? [certificate] : undefined,
  });
  await signedData.sign(signer.key, 0, "SHA-256");
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) }),
  });
  return new Uint8Array(response.toSchema().toBER());
}
