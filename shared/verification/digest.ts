/** SHA-256 of some bytes in lower-case hex, with WebCrypto (the Worker and Node alike). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
