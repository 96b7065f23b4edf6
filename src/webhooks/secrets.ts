import { randomToken } from "../lib/crypto.ts";

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** `whsec_` followed by 32 random bytes (base64url): shown once, then only ever stored encrypted. */
export function newWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export const secretHint = (secret: string) => secret.slice(0, 10);

async function key(base64Key: string | undefined): Promise<CryptoKey> {
  if (!base64Key) throw new Error("WEBHOOK_SECRET_KEY is not configured");
  return crypto.subtle.importKey("raw", unb64(base64Key), "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function encryptSecret(base64Key: string | undefined, secret: string): Promise<{ ciphertext: string; iv: string }> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await key(base64Key), new TextEncoder().encode(secret));
  return { ciphertext: b64(new Uint8Array(sealed)), iv: b64(iv) };
}

export async function decryptSecret(base64Key: string | undefined, stored: { ciphertext: string; iv: string }): Promise<string> {
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(stored.iv) }, await key(base64Key), unb64(stored.ciphertext));
  return new TextDecoder().decode(plain);
}
