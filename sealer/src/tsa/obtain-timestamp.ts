import { join } from "node:path";
import { inScratch, openssl, readFile, writeFile } from "./openssl.ts";
import { TimestampUnavailableError, type TimestampAuthority } from "./authority.ts";

export interface CheckedTimestamp {
  /** The whole TimeStampResp, as `openssl ts -verify -in` expects it. */
  response: Uint8Array;
  /** The TimeStampToken alone (for C2PA's sigTst2). */
  token: Uint8Array;
  genTime: string;
  serial: string;
  policy: string;
  authority: string;
  qualified: boolean;
}

const certificates = (pem: string) => (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => c.replace(/\s+/g, ""));

function field(text: string, label: string): string {
  const match = new RegExp(`^${label}:\\s*(.+)$`, "m").exec(text);
  if (!match?.[1]) throw new TimestampUnavailableError(`timestamp response without ${label}`);
  return match[1].trim();
}

/**
 * Requests a timestamp over a SHA-256 digest (with a nonce and the signer certificate) and checks the
 * answer before anyone relies on it, with openssl's own verifier: granted, the same imprint and nonce,
 * a valid signature, a signer certified for timestamping only, a chain to the authority's roots.
 */
export async function obtainTimestamp(authority: TimestampAuthority, digestHex: string): Promise<CheckedTimestamp> {
  return inScratch(async (dir) => {
    await openssl(["ts", "-query", "-digest", digestHex, "-sha256", "-cert", "-out", "q.tsq"], dir);
    const response = await authority.respond(new Uint8Array(await readFile(join(dir, "q.tsq"))));
    await writeFile(join(dir, "r.tsr"), response);
    await writeFile(join(dir, "chain.pem"), authority.chainPem);
    try {
      const verdict = await openssl(["ts", "-verify", "-queryfile", "q.tsq", "-in", "r.tsr", "-CAfile", "chain.pem"], dir);
      if (!verdict.includes("Verification: OK")) throw new Error(verdict);
    } catch (error) {
      throw new TimestampUnavailableError(`timestamp response refused: ${(error as Error).message.split("\n").slice(-3).join(" ")}`);
    }
    const text = await openssl(["ts", "-reply", "-in", "r.tsr", "-text"], dir);
    await openssl(["ts", "-reply", "-in", "r.tsr", "-token_out", "-out", "token.der"], dir);
    const qualified = certificates(authority.qualifiedCertsPem);
    // Only an authority configured with qualified certificates can yield a qualified token.
    const signers = qualified.length === 0 ? "" : await openssl(["pkcs7", "-inform", "DER", "-in", "token.der", "-print_certs"], dir);
    return {
      response,
      token: new Uint8Array(await readFile(join(dir, "token.der"))),
      genTime: new Date(field(text, "Time stamp")).toISOString(),
      serial: field(text, "Serial number"),
      policy: field(text, "Policy OID"),
      authority: authority.name,
      qualified: qualified.length > 0 && certificates(signers).some((cert) => qualified.includes(cert)),
    };
  });
}
