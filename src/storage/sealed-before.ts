import { and, asc, eq, inArray, ne, or, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, proofs } from "../db/schema/index.ts";
import type { ObjectStore } from "./objects/bucket.ts";
import { proofsSealedWithBytes, type SealedBytesEntry } from "./objects/hash-index.ts";
import { observedProofFiles } from "./proofs-read.ts";
import type { ProofRow } from "./rows.ts";
import { askedInTheirShards, type ProofShards } from "./write-shards.ts";

/** D1 binds at most 100 parameters per statement: each chunk binds its hashes twice plus three. */
const HASHES_PER_QUERY = 40;
/**
 * Sealed-before lists made at once, each of up to 1,000 keys: at most 50,000 keys listed at a time however many files
 * the proof has (a 1,000-file proof's lists run in 20 rounds), when an insider planted a thousand under each hash.
 */
const LISTS_AT_ONCE = 50;
/**
 * Proof ids one statement binds as one JSON array (about 30 bytes each, 5 bound parameters in all), far within D1's
 * 2 MB string: the entries of 20 hashes listed to a full 1,000 keys each, and of every hash of a proof whose bytes are
 * new or re-used once (one or two entries a hash), which is one statement for the whole proof.
 */
const IDS_PER_QUERY = 20_000;
/**
 * Candidates whose files are read, one after the other, for each hash: the earliest confirmed one holds the bytes
 * unless entries naming other sealed proofs at their own seal times were planted before it.
 */
const FILES_READ_PER_HASH = 3;

type Scope = { id: string; organizationId: string; mode: "test" | "live" };
interface EarlierProof {
  proofId: string;
  sealedAt: string;
}

/**
 * For each hash, the earliest other sealed proof of the same organization and mode holding those bytes, in any of its
 * shards (docs/adr/0070), as an original or as a signed copy (a sealed file uploaded again). Keyed by hash, lowercase.
 * Proofs sealed since docs/adr/0065 left no file row: the sealed-before index in R2 names them (one list a hash), and
 * D1 and their own files, in the shard each one's id names, say which of those hold the bytes; proofs sealed before
 * are found by their file rows, as they always were, in the organization's home shard: they were all sealed there,
 * before write shards.
 */
export async function earlierProofsByHash(shards: ProofShards, store: ObjectStore, proof: Scope, hashes: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(hashes.map((hash) => hash.toLowerCase()))];
  const [byRows, byIndex] = await Promise.all([earlierByFileRows(shards.open(shards.home), proof, wanted), earlierByIndex(shards, store, proof, wanted)]);
  const found = new Map<string, string>();
  for (const hash of wanted) {
    const earliest = [byRows.get(hash), byIndex.get(hash)].filter((earlier) => earlier !== undefined).sort(earliestFirst)[0];
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

/** A proof an index entry names, as D1 has it, with what reading its files needs. */
type NamedProof = EarlierProof & Pick<ProofRow, "id" | "sealingRun" | "sealedRecord" | "sealedRecordSha256" | "manifestSha256">;

/**
 * The earliest proof holding each hash among those the sealed-before index names. The index is empty objects in R2
 * that anyone able to write to the bucket can put (forger session 7, G4): an entry counts only when D1 says its
 * proof is sealed in the organization and mode at the time its key says (one statement for up to 20,000 entries: one for
 * the whole proof unless entries were planted by the thousand), and that
 * proof's own files (its sealed record, bound by its SHA-256 in D1, its hashes taken from the sealed manifest) hold
 * the hash. Those files are read only for a hash with such a candidate, earliest first, at most
 * `FILES_READ_PER_HASH` of them, each proof once however many of the hashes name it. Both are asked in the shard the
 * entry's proof id names when it is one of the organization's (forger session 9, W7), the shards at once: an
 * organization in one shard asks it alone, as before.
 */
async function earlierByIndex(shards: ProofShards, store: ObjectStore, proof: Scope, wanted: string[]): Promise<Map<string, EarlierProof>> {
  const queues: { hash: string; candidates: NamedProof[] }[] = [];
  let pending: { hash: string; entries: SealedBytesEntry[] }[] = [];
  let pendingIds = 0;
  // The entries listed so far, confirmed by one statement, and of each hash only the candidates that may be read.
  const confirmPending = async () => {
    const ids = [...new Set(pending.flatMap(({ entries }) => entries.map((entry) => entry.proofId)))];
    const named = await askedInTheirShards(
      shards,
      ids,
      (id) => id,
      (db, held) => sealedProofsNamed(db, proof, held),
    );
    for (const { hash, entries } of pending) queues.push({ hash, candidates: confirmedCandidates(entries, named) });
    pending = [];
    pendingIds = 0;
  };
  for (let start = 0; start < wanted.length; start += LISTS_AT_ONCE) {
    const listed = await Promise.all(
      wanted.slice(start, start + LISTS_AT_ONCE).map(async (hash) => ({ hash, entries: await proofsSealedWithBytes(store, proof, hash) })),
    );
    for (const item of listed) {
      if (item.entries.length === 0) continue;
      if (pendingIds + item.entries.length > IDS_PER_QUERY) await confirmPending();
      pending.push(item);
      pendingIds += item.entries.length;
    }
  }
  await confirmPending();
  const held = new Map<string, Set<string>>();
  const found = new Map<string, EarlierProof>();
  for (let turn = 0; turn < FILES_READ_PER_HASH; turn++) {
    const open = queues.filter(({ hash, candidates }) => !found.has(hash) && turn < candidates.length);
    if (open.length === 0) break;
    const unread = [...new Map(open.map(({ candidates }) => [candidates[turn]!.id, candidates[turn]!])).values()].filter(({ id }) => !held.has(id));
    for (const [id, read] of await askedInTheirShards(
      shards,
      unread,
      ({ id }) => id,
      (db, held) => observedProofFiles(db, store, held),
    ))
      held.set(
        id,
        new Set(
          Array.isArray(read) ? read.flatMap((file) => [file.sha256, file.signedSha256].flatMap((hash) => (hash === null ? [] : [hash.toLowerCase()]))) : [],
        ),
      );
    for (const { hash, candidates } of open) {
      const candidate = candidates[turn]!;
      if (held.get(candidate.id)?.has(hash)) found.set(hash, { proofId: candidate.id, sealedAt: candidate.sealedAt });
    }
  }
  return found;
}

/** The entries whose proof D1 has sealed at the time their key says, one a proof, earliest first: those whose files may be read. */
function confirmedCandidates(entries: SealedBytesEntry[], named: Map<string, NamedProof>): NamedProof[] {
  const confirmed = new Map<string, NamedProof>();
  for (const entry of entries) {
    const sealed = named.get(entry.proofId);
    if (sealed !== undefined && sealed.sealedAt === entry.sealedAt) confirmed.set(sealed.id, sealed);
  }
  return [...confirmed.values()].sort(earliestFirst).slice(0, FILES_READ_PER_HASH);
}

/** Those of `ids` that are sealed proofs of the organization and mode other than `proof`, each with its seal time. */
async function sealedProofsNamed(db: Database, proof: Scope, ids: string[]): Promise<Map<string, NamedProof>> {
  const [first, ...rest] = Array.from({ length: Math.ceil(ids.length / IDS_PER_QUERY) }, (_, index) =>
    db
      .select({
        id: proofs.id,
        sealedAt: proofs.sealedAt,
        sealingRun: proofs.sealingRun,
        sealedRecord: proofs.sealedRecord,
        sealedRecordSha256: proofs.sealedRecordSha256,
        manifestSha256: proofs.manifestSha256,
      })
      .from(proofs)
      .where(
        and(
          inArray(proofs.id, sql`(SELECT value FROM json_each(${JSON.stringify(ids.slice(index * IDS_PER_QUERY, (index + 1) * IDS_PER_QUERY))}))`),
          ...sealedOthers(proof),
        ),
      ),
  );
  if (first === undefined) return new Map();
  const rows = (await db.batch([first, ...rest])).flat();
  return new Map(rows.flatMap((row) => (row.sealedAt === null ? [] : [[row.id, { ...row, proofId: row.id, sealedAt: row.sealedAt }] as const])));
}

const earliestFirst = (a: EarlierProof, b: EarlierProof) => a.sealedAt.localeCompare(b.sealedAt) || a.proofId.localeCompare(b.proofId);

/** Sealed proofs of the organization and mode other than `proof`. */
const sealedOthers = (proof: Scope) => [
  eq(proofs.organizationId, proof.organizationId),
  eq(proofs.mode, proof.mode),
  eq(proofs.status, "sealed"),
  ne(proofs.id, proof.id),
];
