const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random identifier with a resource prefix (`prf_`, `cps_`, …): 20 base-36 characters, about 103 bits. */
export function newId(prefix: string, length = 20): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${prefix}_${out}`;
}
