import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client.ts";
import { fileFingerprints } from "../db/schema/index.ts";
import { type FingerprintPair, phashBands } from "../../shared/perceptual-fingerprint.ts";
import { whilePending } from "./proof-sealing.ts";
import { valueList } from "./statement.ts";

/**
 * The sealed photos' perceptual fingerprints (table `file_fingerprints`, docs/adr/0041): written in the batch
 * that seals their proof, and looked up band by band when the organization seals its next photos.
 */

/**
 * Rows one band's look-up returns at most, per photo of its group. Measured at one million sealed photos of one
 * organization (ADR 0041): a band and its 16 one-bit neighbours held about 270 rows of whole pictures; with the four
 * five crops of each photo (ADR 0052), six times as many, about 1,600. What is beyond the bound is not compared.
 */
export const CANDIDATES_PER_BAND = 2_500;
/** The same bound for a print looked up by its exact band only (a query crop), one value of a band's 17. */
export const CANDIDATES_PER_EXACT_BAND = Math.ceil(CANDIDATES_PER_BAND / 17);
/**
 * Band values one look-up statement binds at most: D1's 100 bound parameters less organization, mode, proof and
 * limit. A photo binds 17 (its whole picture's band and 16 neighbours) and 4 (its query crops' exact bands), so a
 * statement holds four photos (88 parameters), five without query crops (89), and a proof of 200 photos makes 200
 * look-up statements (a statement a photo) of the invocation's 1,000 queries.
 */
export const BAND_VALUES_PER_STATEMENT = 96;
/** Rows one multi-row insert writes: 7 × 13 values and the proof's id, 92 of D1's 100 bound parameters. */
const ROWS_PER_INSERT = 7;

export interface PhotoFingerprint extends FingerprintPair {
  fileId: string;
  stepId: string;
  /** A video's print is its middle frame's, its crops its other frames (docs/adr/0059), each of them looked up (0063). */
  kind: "photo" | "video";
  /**
   * 95 % of the picture kept against each corner and centred (docs/adr/0052); [] for a photo fingerprinted before they
   * were. A video's frames at 10 % and 90 % of its duration.
   */
  crops: FingerprintPair[];
  /**
   * A photo's four crops 5 % off one edge (docs/adr/0052): looked up by their exact bands and compared with their own
   * thresholds, never stored; [] for a video.
   */
  queryCrops: FingerprintPair[];
}

/** A print looked up: by its pHash bands and their one-bit neighbours, or by its exact bands only (a query crop). */
export interface PrintLookup {
  phash: string;
  exactBands?: boolean;
}

export interface FingerprintCandidate {
  fileId: string;
  proofId: string;
  stepId: string;
  sealedAt: string;
  phash: string;
  dhash: string;
  /** 0: the whole picture; 1 to 5: a crop of it. */
  variant: number;
}

type ProofScope = { id: string; organizationId: string; mode: "test" | "live" };

/** A band's value and the 16 values one bit away. */
const bandWithNeighbours = (band: number) => [band, ...Array.from({ length: 16 }, (_, bit) => band ^ (1 << bit))];

const BAND_COLUMNS = [fileFingerprints.band0, fileFingerprints.band1, fileFingerprints.band2, fileFingerprints.band3] as const;

const bandValues = (lookup: PrintLookup, band: number) => (lookup.exactBands ? [band] : bandWithNeighbours(band));

/** The look-ups in order, a statement's worth after another: each group binds at most {@link BAND_VALUES_PER_STATEMENT} values. */
function statementGroups(lookups: readonly PrintLookup[]): PrintLookup[][] {
  const groups: PrintLookup[][] = [];
  // No statement open yet: the first look-up opens one.
  let values = Number.POSITIVE_INFINITY;
  for (const lookup of lookups) {
    const count = lookup.exactBands ? 1 : 17;
    if (values + count > BAND_VALUES_PER_STATEMENT) {
      groups.push([]);
      values = 0;
    }
    groups.at(-1)!.push(lookup);
    values += count;
  }
  return groups;
}

const groupsOf = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

/**
 * The organization's sealed photos of the same mode, in other proofs, that may be close to one of `lookups` (whole
 * pictures, video frames, query crops): the rows, whole pictures and crops, sharing one of the four pHash bands, to
 * within one bit or exactly as each look-up says. For each band, one statement per group of look-ups binding at most
 * {@link BAND_VALUES_PER_STATEMENT} values, through that band's index, all in one batch; the distances are for the
 * caller to compute.
 */
export async function fingerprintCandidates(db: Database, proof: ProofScope, lookups: readonly PrintLookup[]): Promise<FingerprintCandidate[]> {
  const queries = statementGroups(lookups).flatMap((group) =>
    BAND_COLUMNS.map((column, index) =>
      db
        .select({
          fileId: fileFingerprints.fileId,
          proofId: fileFingerprints.proofId,
          stepId: fileFingerprints.stepId,
          sealedAt: fileFingerprints.sealedAt,
          phash: fileFingerprints.phash,
          dhash: fileFingerprints.dhash,
          variant: fileFingerprints.variant,
        })
        .from(fileFingerprints)
        .where(
          and(
            eq(fileFingerprints.organizationId, proof.organizationId),
            eq(fileFingerprints.mode, proof.mode),
            inArray(column, [...new Set(group.flatMap((lookup) => bandValues(lookup, phashBands(lookup.phash)[index]!)))]),
            ne(fileFingerprints.proofId, proof.id),
          ),
        )
        .limit(group.reduce((rows, lookup) => rows + (lookup.exactBands ? CANDIDATES_PER_EXACT_BAND : CANDIDATES_PER_BAND), 0)),
    ),
  );
  const [first, ...rest] = queries;
  if (first === undefined) return [];
  const results = await db.batch([first, ...rest]);
  const unique = new Map<string, FingerprintCandidate>();
  for (const rows of results) for (const row of rows) unique.set(`${row.fileId}/${row.variant}`, row);
  return [...unique.values()];
}

/**
 * The photos' fingerprint rows, the whole picture's (variant 0) and its crops' (1 to 5), a few per statement,
 * written only while their proof is still pending (the batch that seals it).
 */
export function fingerprintInserts(db: Database, proof: ProofScope, sealedAt: string, photos: readonly PhotoFingerprint[]): BatchItem<"sqlite">[] {
  const variants = photos.flatMap((photo) => [photo, ...photo.crops].map((print, variant) => ({ photo, print, variant })));
  return groupsOf(variants, ROWS_PER_INSERT).map((group) => {
    const rows = group.map(({ photo, print, variant }) => {
      const values = [
        photo.fileId,
        proof.organizationId,
        proof.mode,
        proof.id,
        photo.stepId,
        sealedAt,
        print.phash,
        print.dhash,
        ...phashBands(print.phash),
        variant,
      ];
      return sql`(${valueList(values)})`;
    });
    // VALUES names its columns column1…column13, in the table's order.
    return db
      .insert(fileFingerprints)
      .select(sql`SELECT * FROM (VALUES ${sql.join(rows, sql`, `)}) WHERE ${whilePending(proof.id)}`)
      .onConflictDoNothing();
  });
}
