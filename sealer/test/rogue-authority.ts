import { createPrivateKey } from "node:crypto";
import * as pkijs from "pkijs";
import type { TimestampAuthority } from "../src/tsa/authority.ts";
import { signTimestampResponse, timeStampRequestFields } from "../src/tsa/simulated-authority.ts";

const der = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----(BEGIN|END) [A-Z ]+-----|\s+/g, ""), "base64"));

/**
 * An RFC 3161 responder that signs with whatever key and certificate it is given, with none of the
 * refusals `openssl ts -reply` makes: it produces the tokens a careless or hostile authority could send,
 * so that the sealer's own checks are what refuses them.
 */
export function rogueAuthority(certPem: string, keyPk8Pem: string, chainPem: string, options: { essCertId?: boolean } = {}): TimestampAuthority {
  return {
    name: "Rogue",
    chainPem,
    qualifiedCertsPem: "",
    async respond(requestDer) {
      const request = timeStampRequestFields(requestDer);
      const certificateDer = der(certPem);
      return signTimestampResponse(
        request,
        { certificate: pkijs.Certificate.fromBER(certificateDer), certificateDer, key: createPrivateKey(keyPk8Pem) },
        {
          policy: "1.2.3.4",
          serialNumber: new Uint8Array([7]),
          essCertId: options.essCertId !== false,
          includeCertificate: true,
        },
      );
    },
  };
}
