import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client.ts";
import { fileFingerprints } from "../db/schema/index.ts";
import { phashBands } from "../../shared/perceptual-fingerprint.ts";
import { whilePending } from "./proof-sealing.ts";

/**
 * The sealed photos' perceptual fingerprints (table `file_fingerprints`, docs/adr/0041): written in the batch
 * that seals their proof, and looked up band by band when the organization seals its next photos.
 */

/**
 * Rows one band's look-up returns at most. Measured at one million sealed photos of one organization (ADR 0041):
 * a band and its 16 one-bit neighbours hold about 270 rows; what is beyond the bound is not compared.
 */
export const CANDIDATES_PER_BAND = 500;

export interface PhotoFingerprint {
  fileId: string;
  stepId: string;
  phash: string;
  dhash: string;
}

export interface FingerprintCandidate {
  fileId: string;
  proofId: string;
  stepId: string;
  sealedAt: string;
  phash: string;
  dhash: string;
}

type ProofScope = { id: string; organizationId: string; mode: "test" | "live" };

/** A band's value and the 16 values one bit away: 17 bound values; with organization, mode, proof and limit 21 of D1's 100. */
const bandWithNeighbours = (band: number) => [band, ...Array.from({ length: 16 }, (_, bit) => band ^ (1 << bit))];

const BAND_COLUMNS = [fileFingerprints.band0, fileFingerprints.band1, fileFingerprints.band2, fileFingerprints.band3] as const;

/**
 * The organization's sealed photos of the same mode, in other proofs, that may be close to one of `photos`:
 * those sharing one of the four pHash bands to within one bit. One statement per photo and band, all in one
 * batch (four per photo: a proof of 200 photos makes 800 of the invocation's 1,000 queries, so callers pass at
 * most {@link PHOTOS_PER_LOOKUP}); the distances are for the caller to compute.
 */
export const PHOTOS_PER_LOOKUP = 100;

export async function fingerprintCandidates(db: Database, proof: ProofScope, photos: readonly PhotoFingerprint[]): Promise<FingerprintCandidate[]> {
  if (photos.length > PHOTOS_PER_LOOKUP) throw new RangeError(`${photos.length} photos in one look-up, over ${PHOTOS_PER_LOOKUP}`);
  const queries = photos.flatMap((photo) =>
    phashBands(photo.phash).map((band, index) =>
      db
        .select({
          fileId: fileFingerprints.fileId,
          proofId: fileFingerprints.proofId,
          stepId: fileFingerprints.stepId,
          sealedAt: fileFingerprints.sealedAt,
          phash: fileFingerprints.phash,
          dhash: fileFingerprints.dhash,
        })
        .from(fileFingerprints)
        .where(
          and(
            eq(fileFingerprints.organizationId, proof.organizationId),
            eq(fileFingerprints.mode, proof.mode),
            inArray(BAND_COLUMNS[index]!, bandWithNeighbours(band)),
            ne(fileFingerprints.proofId, proof.id),
          ),
        )
        .limit(CANDIDATES_PER_BAND),
    ),
  );
  const [first, ...rest] = queries;
  if (first === undefined) return [];
  const results = await db.batch([first, ...rest]);
  const unique = new Map<string, FingerprintCandidate>();
  for (const rows of results) for (const row of rows) unique.set(row.fileId, row);
  return [...unique.values()];
}

/** The photo's fingerprint row, written only while its proof is still pending (the batch that seals it). */
export function fingerprintInsert(db: Database, proof: ProofScope, sealedAt: string, photo: PhotoFingerprint): BatchItem<"sqlite"> {
  const [band0, band1, band2, band3] = phashBands(photo.phash);
  return db
    .insert(fileFingerprints)
    .select(
      sql`SELECT ${photo.fileId}, ${proof.organizationId}, ${proof.mode}, ${proof.id}, ${photo.stepId}, ${sealedAt}, ${photo.phash}, ${photo.dhash}, ${band0}, ${band1}, ${band2}, ${band3} WHERE ${whilePending(proof.id)}`,
    )
    .onConflictDoNothing();
}
