import { and, asc, eq, inArray, ne, or } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { proofsSealedWithBytes } from "./objects/hash-index.ts";

/** D1 binds at most 100 parameters per statement: each chunk binds its hashes twice plus three. */
const HASHES_PER_QUERY = 40;
/** Proof ids one statement binds, with the four conditions beside them, within D1's 100 bound parameters. */
const IDS_PER_QUERY = 90;
/** Proofs listed per hash from the sealed-before index, earliest first: the earliest sealed one is among them. */
const INDEXED_PER_HASH = 20;

type Scope = { id: string; organizationId: string; mode: "test" | "live" };
interface EarlierProof {
  proofId: string;
  sealedAt: string;
}

/**
 * For each hash, the earliest other sealed proof of the same organization and mode holding those bytes,
 * as an original or as a signed copy (a sealed file uploaded again). Keyed by hash, lowercase. Proofs sealed since
 * docs/adr/0065 left no file row: the sealed-before index in R2 names them (one list a hash), and D1 says which
 * of those are sealed; proofs sealed before are found by their file rows, as they always were.
 */
export async function earlierProofsByHash(db: Database, store: ObjectStore, proof: Scope, hashes: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(hashes.map((hash) => hash.toLowerCase()))];
  const [byRows, byIndex] = await Promise.all([earlierByFileRows(db, proof, wanted), earlierByIndex(db, store, proof, wanted)]);
  const found = new Map<string, string>();
  for (const hash of wanted) {
    const earliest = [byRows.get(hash), byIndex.get(hash)]
      .filter((earlier) => earlier !== undefined)
      .sort((a, b) => a.sealedAt.localeCompare(b.sealedAt) || a.proofId.localeCompare(b.proofId))[0];
    if (earliest !== undefined) found.set(hash, earliest.proofId);
  }
  return found;
}

/** The earliest proof holding each hash among those whose file rows D1 still has (sealed before docs/adr/0065). */
async function earlierByFileRows(db: Database, proof: Scope, wanted: string[]): Promise<Map<string, EarlierProof>> {
  const found = new Map<string, EarlierProof>();
  for (let start = 0; start < wanted.length; start += HASHES_PER_QUERY) {
    const chunk = wanted.slice(start, start + HASHES_PER_QUERY);
    const rows = await db
      .select({ sha256: files.sha256, signedSha256: files.signedSha256, proofId: proofs.id, sealedAt: proofs.sealedAt })
      .from(files)
      .innerJoin(proofs, eq(files.proofId, proofs.id))
      .where(and(or(inArray(files.sha256, chunk), inArray(files.signedSha256, chunk)), ...sealedOthers(proof)))
      .orderBy(asc(proofs.sealedAt), asc(proofs.id))
      .all();
    for (const row of rows) {
      for (const hash of [row.sha256, row.signedSha256]) {
        if (hash !== null && chunk.includes(hash) && !found.has(hash)) found.set(hash, { proofId: row.proofId, sealedAt: row.sealedAt ?? "" });
      }
    }
  }
  return found;
}

/** The earliest proof holding each hash among those the sealed-before index names that D1 says are sealed. */
async function earlierByIndex(db: Database, store: ObjectStore, proof: Scope, wanted: string[]): Promise<Map<string, EarlierProof>> {
  const listed = await Promise.all(wanted.map(async (hash) => ({ hash, proofIds: await proofsSealedWithBytes(store, proof, hash, INDEXED_PER_HASH) })));
  const ids = [...new Set(listed.flatMap(({ proofIds }) => proofIds))].filter((id) => id !== proof.id);
  const [first, ...rest] = Array.from({ length: Math.ceil(ids.length / IDS_PER_QUERY) }, (_, index) =>
    db
      .select({ proofId: proofs.id, sealedAt: proofs.sealedAt })
      .from(proofs)
      .where(and(inArray(proofs.id, ids.slice(index * IDS_PER_QUERY, (index + 1) * IDS_PER_QUERY)), ...sealedOthers(proof))),
  );
  const sealed = new Map<string, EarlierProof>();
  if (first !== undefined)
    for (const row of (await db.batch([first, ...rest])).flat()) sealed.set(row.proofId, { proofId: row.proofId, sealedAt: row.sealedAt ?? "" });
  const found = new Map<string, EarlierProof>();
  for (const { hash, proofIds } of listed) {
    const earliest = proofIds
      .flatMap((id) => sealed.get(id) ?? [])
      .sort((a, b) => a.sealedAt.localeCompare(b.sealedAt) || a.proofId.localeCompare(b.proofId))[0];
    if (earliest !== undefined) found.set(hash, earliest);
  }
  return found;
}

/** Sealed proofs of the organization and mode other than `proof`. */
const sealedOthers = (proof: Scope) => [
  eq(proofs.organizationId, proof.organizationId),
  eq(proofs.mode, proof.mode),
  eq(proofs.status, "sealed"),
  ne(proofs.id, proof.id),
];
