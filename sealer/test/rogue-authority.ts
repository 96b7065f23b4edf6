import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { TimestampAuthority } from "../src/tsa/authority.ts";

const der = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----(BEGIN|END) [A-Z ]+-----|\s+/g, ""), "base64"));

/**
 * An RFC 3161 responder written with pkijs that signs with whatever key and certificate it is given, with
 * none of the refusals `openssl ts -reply` makes: it produces the tokens a careless or hostile authority
 * could send, so that the sealer's own checks are what refuses them.
 */
export function rogueAuthority(certPem: string, keyPk8Pem: string, chainPem: string, options: { essCertId?: boolean } = {}): TimestampAuthority {
  return {
    name: "Rogue",
    chainPem,
    qualifiedCertsPem: "",
    async respond(requestDer) {
      const request = pkijs.TimeStampReq.fromBER(requestDer.slice().buffer as ArrayBuffer);
      const tstInfo = new pkijs.TSTInfo({
        version: 1,
        policy: "1.2.3.4",
        messageImprint: request.messageImprint,
        serialNumber: new asn1js.Integer({ value: 7 }),
        genTime: new Date(),
        nonce: request.nonce,
      });
      const content = tstInfo.toSchema().toBER();
      const certificate = pkijs.Certificate.fromBER(der(certPem));
      const signedData = new pkijs.SignedData({
        version: 3,
        encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: pkijs.id_eContentType_TSTInfo, eContent: new asn1js.OctetString({ valueHex: content }) }),
        signerInfos: [
          new pkijs.SignerInfo({
            version: 1,
            sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
            signedAttrs: new pkijs.SignedAndUnsignedAttributes({
              type: 0,
              attributes: [
                new pkijs.Attribute({ type: "1.2.840.113549.1.9.3", values: [new asn1js.ObjectIdentifier({ value: pkijs.id_eContentType_TSTInfo })] }),
                new pkijs.Attribute({ type: "1.2.840.113549.1.9.4", values: [new asn1js.OctetString({ valueHex: await crypto.subtle.digest("SHA-256", content) })] }),
                // SigningCertificateV2 { certs: [ESSCertIDv2 { certHash }] } with the default SHA-256.
                ...(options.essCertId === false
                  ? []
                  : [
                      new pkijs.Attribute({
                        type: "1.2.840.113549.1.9.16.2.47",
                        values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: await crypto.subtle.digest("SHA-256", der(certPem)) })] })] })] })],
                      }),
                    ]),
              ],
            }),
          }),
        ],
        certificates: [certificate],
      });
      const key = await crypto.subtle.importKey("pkcs8", der(keyPk8Pem), { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
      await signedData.sign(key, 0, "SHA-256");
      const response = new pkijs.TimeStampResp({
        status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
        timeStampToken: new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) }),
      });
      return new Uint8Array(response.toSchema().toBER());
    },
  };
}
