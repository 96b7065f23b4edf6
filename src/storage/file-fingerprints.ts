import { and, eq, inArray, ne } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { fileFingerprints, files as filesTable } from "../db/schema/index.ts";
import type { BandQuery, IndexedFile } from "../durable/similarity-index.ts";
import { type FingerprintPair, phashBands } from "../../shared/perceptual-fingerprint.ts";

/**
 * The fingerprints sealed before the similarity index (table `file_fingerprints`, docs/adr/0041, 0064): no new row is
 * written; those there are still looked up, band by band, until the backfill has moved them into the index
 * ({@link fingerprintsToMove}, {@link deleteMovedFingerprints}).
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
  /** What the file is: a likeness to it is named so (docs/adr/0063). */
  kind: "photo" | "video";
}

export type ProofScope = { id: string; organizationId: string; mode: "test" | "live" };

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

/**
 * The look-up's statements, in the D1 table as in the similarity index (docs/adr/0064): for each group of look-ups
 * binding at most {@link BAND_VALUES_PER_STATEMENT} values, and each of the four bands, the band's values (to within
 * one bit, or exactly as each look-up says) and the rows the statement returns at most.
 */
export function bandQueries(lookups: readonly PrintLookup[]): BandQuery[] {
  return statementGroups(lookups).flatMap((group) =>
    BAND_COLUMNS.map((_, band) => ({
      band,
      values: [...new Set(group.flatMap((lookup) => bandValues(lookup, phashBands(lookup.phash)[band]!)))],
      limit: group.reduce((rows, lookup) => rows + (lookup.exactBands ? CANDIDATES_PER_EXACT_BAND : CANDIDATES_PER_BAND), 0),
    })),
  );
}

/**
 * The organization's photos of the same mode, in other proofs, still in the D1 table, that may be close to one of
 * `lookups` (whole pictures, video frames, query crops): the rows, whole pictures and crops, of each of
 * {@link bandQueries}, through that band's index, all in one batch, with what each file is (its row in files); the
 * distances are for the caller to compute. A row there was written in the batch that sealed its proof: its proof is sealed.
 */
export async function fingerprintCandidates(db: Database, proof: ProofScope, lookups: readonly PrintLookup[]): Promise<FingerprintCandidate[]> {
  const queries = bandQueries(lookups).map(({ band, values, limit }) =>
    db
      .select({
        fileId: fileFingerprints.fileId,
        proofId: fileFingerprints.proofId,
        stepId: fileFingerprints.stepId,
        sealedAt: fileFingerprints.sealedAt,
        phash: fileFingerprints.phash,
        dhash: fileFingerprints.dhash,
        variant: fileFingerprints.variant,
        kind: filesTable.kind,
      })
      .from(fileFingerprints)
      .leftJoin(filesTable, eq(filesTable.id, fileFingerprints.fileId))
      .where(
        and(
          eq(fileFingerprints.organizationId, proof.organizationId),
          eq(fileFingerprints.mode, proof.mode),
          inArray(BAND_COLUMNS[band]!, values),
          ne(fileFingerprints.proofId, proof.id),
        ),
      )
      .limit(limit),
  );
  const [first, ...rest] = queries;
  if (first === undefined) return [];
  const results = await db.batch([first, ...rest]);
  const unique = new Map<string, FingerprintCandidate>();
  // A file without its row any more counts as a photo, as the look-up has always named it (docs/adr/0063).
  for (const rows of results) for (const row of rows) unique.set(`${row.fileId}/${row.variant}`, { ...row, kind: row.kind ?? "photo" });
  return [...unique.values()];
}

/** A file of the D1 table, with its prints, to be moved into its organization's and mode's index. */
export interface FingerprintsToMove {
  organizationId: string;
  mode: "test" | "live";
  file: IndexedFile;
}

/** Files one delete statement names: 90 of D1's 100 bound parameters. */
const FILES_PER_DELETE = 90;

/**
 * The first `files` files of the D1 table (by id), each whole with its variants in order (one statement, through the
 * primary key), for the backfill to write into their indexes before it deletes them here.
 */
export async function fingerprintsToMove(db: Database, files: number): Promise<FingerprintsToMove[]> {
  const firstFiles = db.selectDistinct({ fileId: fileFingerprints.fileId }).from(fileFingerprints).orderBy(fileFingerprints.fileId).limit(files);
  const rows = await db
    .select({ print: fileFingerprints, kind: filesTable.kind })
    .from(fileFingerprints)
    .leftJoin(filesTable, eq(filesTable.id, fileFingerprints.fileId))
    .where(inArray(fileFingerprints.fileId, firstFiles))
    .orderBy(fileFingerprints.fileId, fileFingerprints.variant);
  const moved = new Map<string, FingerprintsToMove>();
  for (const { print: row, kind } of rows) {
    const known = moved.get(row.fileId);
    const print = { phash: row.phash, dhash: row.dhash };
    // Variants 0, 1, 2… in order: each file's were written together, in the batch that sealed it.
    if (known) known.file.prints.push(print);
    else
      moved.set(row.fileId, {
        organizationId: row.organizationId,
        mode: row.mode,
        // A file without its row any more counts as a photo, as the look-up has always named it (docs/adr/0063).
        file: { fileId: row.fileId, proofId: row.proofId, stepId: row.stepId, kind: kind === "video" ? "video" : "photo", prints: [print] },
      });
  }
  return [...moved.values()];
}

/** Deletes the D1 rows of files the backfill has written into their indexes, in one batch. */
export async function deleteMovedFingerprints(db: Database, fileIds: readonly string[]): Promise<void> {
  const statements = Array.from({ length: Math.ceil(fileIds.length / FILES_PER_DELETE) }, (_, index) =>
    db.delete(fileFingerprints).where(inArray(fileFingerprints.fileId, fileIds.slice(index * FILES_PER_DELETE, (index + 1) * FILES_PER_DELETE))),
  );
  const [first, ...rest] = statements;
  if (first !== undefined) await db.batch([first, ...rest]);
}
