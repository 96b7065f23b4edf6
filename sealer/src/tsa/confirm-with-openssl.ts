import { join } from "node:path";
import { inScratch, openssl, writeFile } from "./openssl.ts";
import { TimestampUnavailableError } from "./authority.ts";

/**
 * A second, independent verdict on the token a proof is sealed with: exactly the command a verifier runs
 * on the published package (`openssl ts -verify -digest … -in proof.tsr -CAfile chain.pem`).
 */
export async function confirmWithOpenssl(response: Uint8Array, digestHex: string, chainPem: string): Promise<void> {
  await inScratch(async (dir) => {
    await writeFile(join(dir, "proof.tsr"), response);
    await writeFile(join(dir, "chain.pem"), chainPem);
    let verdict = "";
    try {
      verdict = await openssl(["ts", "-verify", "-digest", digestHex, "-in", "proof.tsr", "-CAfile", "chain.pem"], dir);
    } catch (error) {
      verdict = (error as Error).message;
    }
    if (!verdict.includes("Verification: OK")) {
      throw new TimestampUnavailableError(`timestamp response refused by openssl: ${verdict.split("\n").slice(-3).join(" ")}`);
    }
  });
}
