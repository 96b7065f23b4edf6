import { phashBands } from "../../shared/perceptual-fingerprint.ts";

/**
 * The similarity index's SQLite layout (docs/adr/0064), apart from the Durable Object so that
 * scripts/measure-similarity-index.ts measures the very statements the object runs. One object per organization
 * and mode: no row names either.
 *
 * - `files`: a sealed photo or video (`video` 1: what a likeness to it is named by, docs/adr/0063), its proof and
 *   step, and its prints in one BLOB, 16 bytes a variant (the
 *   64-bit pHash then the 64-bit dHash, big-endian), variant 0 first: the whole picture (a video's middle frame),
 *   then its crops (a video's other frames). Its integer key is what the band entries name.
 * - `bands`: one entry a pHash band of each variant, `WITHOUT ROWID`, so that the entry is its own index: `band`
 *   is the band's number times 65,536 plus its 16-bit value, `print` the file's key times 8 plus the variant.
 */
export const SIMILARITY_INDEX_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS files (file INTEGER PRIMARY KEY, file_id TEXT NOT NULL UNIQUE, proof_id TEXT NOT NULL, step_id TEXT NOT NULL, video INTEGER NOT NULL, prints BLOB NOT NULL)",
  "CREATE TABLE IF NOT EXISTS bands (band INTEGER NOT NULL, print INTEGER NOT NULL, PRIMARY KEY (band, print)) WITHOUT ROWID",
] as const;

/** Writes a file and its prints, replacing what it had: binds file id, proof id, step id, video (0 or 1), prints. */
export const UPSERT_FILE =
  "INSERT INTO files (file_id, proof_id, step_id, video, prints) VALUES (?, ?, ?, ?, ?) ON CONFLICT (file_id) DO UPDATE SET proof_id = excluded.proof_id, step_id = excluded.step_id, video = excluded.video, prints = excluded.prints RETURNING file";
/** A band entry of a print: binds the band number and the print (the file's key times 8 plus the variant). */
export const INSERT_BAND = "INSERT OR IGNORE INTO bands (band, print) VALUES (?, ?)";

/** Bytes of one variant in `files.prints`. */
export const PRINT_BYTES = 16;
/** Variants a file has at most (a photo's whole picture and five crops): `print` keeps three bits for it. */
export const VARIANTS_PER_FILE = 8;

/** A print's pHash and dHash, as the sealer sends them: 16 hexadecimal digits each. */
export interface HexPrint {
  phash: string;
  dhash: string;
}

/** The variants' prints as `files.prints` holds them. */
export function packPrints(prints: readonly HexPrint[]): Uint8Array {
  const bytes = new Uint8Array(prints.length * PRINT_BYTES);
  prints.forEach(({ phash, dhash }, variant) => {
    const hex = `${phash}${dhash}`;
    if (!/^[0-9a-f]{32}$/i.test(hex)) throw new TypeError(`print ${variant} is not two 64-bit hexadecimal values`);
    for (let at = 0; at < PRINT_BYTES; at++) bytes[variant * PRINT_BYTES + at] = Number.parseInt(hex.slice(at * 2, at * 2 + 2), 16);
  });
  return bytes;
}

/** One variant of `files.prints`, as hexadecimal digits again (lower case). */
export function unpackPrint(bytes: Uint8Array, variant: number): HexPrint {
  const hex = Array.from(bytes.subarray(variant * PRINT_BYTES, (variant + 1) * PRINT_BYTES), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return { phash: hex.slice(0, 16), dhash: hex.slice(16) };
}

/** The four 16-bit bands of a pHash, as `bands.band` numbers them. */
export const bandEntries = (phash: string): number[] => phashBands(phash).map((value, band) => band * 65_536 + value);
