import * as pkijs from "pkijs";

export interface TimestampCheck {
  signatureValid: boolean;
  imprintMatches: boolean;
  chainTrusted: boolean;
  genTime: string | null;
}

function pemCertificates(pem: string): pkijs.Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => {
    const base64 = block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, "");
    return pkijs.Certificate.fromBER(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
  });
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Re-checks a stored RFC 3161 response against the manifest bytes, independently of the sealer: the
 * token's CMS signature (over the TSTInfo it carries), the message imprint, and the signer's chain to
 * one of the published roots, evaluated at the token's own `genTime` (a certificate that expired since
 * does not invalidate an old proof).
 */
export async function checkTimestamp(tsr: Uint8Array, manifest: Uint8Array, chainPem: string): Promise<TimestampCheck> {
  const result: TimestampCheck = { signatureValid: false, imprintMatches: false, chainTrusted: false, genTime: null };
  try {
    const response = pkijs.TimeStampResp.fromBER(tsr.slice().buffer as ArrayBuffer);
    if (response.status.status !== 0 && response.status.status !== 1) return result;
    const token = response.timeStampToken;
    if (!token) return result;
    const signedData = new pkijs.SignedData({ schema: token.content });
    const content = signedData.encapContentInfo.eContent;
    if (!content) return result;
    const tstInfo = pkijs.TSTInfo.fromBER(content.getValue());
    result.genTime = tstInfo.genTime.toISOString();
    const manifestBuffer = manifest.slice().buffer as ArrayBuffer;
    const manifestSha256 = hex(await crypto.subtle.digest("SHA-256", manifestBuffer));
    result.imprintMatches = hex(tstInfo.messageImprint.hashedMessage.getValue()) === manifestSha256;
    // For a timestamp token pkijs checks the signature and that the TSTInfo's imprint is the hash of `data`.
    result.signatureValid = Boolean(await signedData.verify({ signer: 0, data: manifestBuffer, checkChain: false }));
    const roots = pemCertificates(chainPem);
    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: roots,
      certs: (signedData.certificates ?? []).filter((cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate),
      checkDate: tstInfo.genTime,
    });
    result.chainTrusted = (await engine.verify()).result === true;
  } catch {
    return result;
  }
  return result;
}
