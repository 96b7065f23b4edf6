const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `length` random base-36 characters (about 5.17 bits each). */
export function randomBase36(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return out;
}

/**
 * Random identifier with a resource prefix (`req_`, `tpl_`, …): 20 base-36 characters, about 103 bits. What
 * must be found from its id alone without an organization's key (a proof, a session, a delivery) is minted
 * with `newShardedId` (src/db/shards.ts) instead, naming its database.
 */
export function newId(prefix: string, length = 20): string {
  return `${prefix}_${randomBase36(length)}`;
}
