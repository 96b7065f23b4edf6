const encoder = new TextEncoder();

/** Hex HMAC-SHA-256 of `message` under `key` (Web Crypto, so the Worker and Node share it). */
export async function hmacSha256Hex(key: string, message: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return Array.from(new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(message))), (byte) => byte.toString(16).padStart(2, "0")).join(
    "",
  );
}
