import { hmacSha256Hex } from "../../shared/hmac-sha256.ts";

/** `t=<unix>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 of `<t>.<body>` keyed with each whole active secret (Stripe's scheme). */
export async function signatureHeader(body: string, secrets: string[], unixSeconds: number): Promise<string> {
  const signatures = await Promise.all(secrets.map((secret) => hmacSha256Hex(secret, `${unixSeconds}.${body}`)));
  return [`t=${unixSeconds}`, ...signatures.map((signature) => `v1=${signature}`)].join(",");
}
