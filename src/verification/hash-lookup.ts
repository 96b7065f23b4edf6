import type { Database } from "../db/client.ts";
import { FIRST_SHARD, shardBinding, shardDatabase, shardOfId, type ShardCode } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { proofsIndexedUnder } from "../storage/objects/hash-index.ts";
import { type ProofReportRow, reportsWithHash } from "../storage/proof-reports.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import { filesSignedWithHash, proofsFilesWithHash, sealedProofsAmong } from "../storage/verification-matches.ts";

/** The most files answered for one hash: the same bytes sealed many times need not be listed to the last. */
export const MOST_FILE_MATCHES = 20;

/**
 * The most proofs the hash index names whose files one look-up reads: 100, in rounds of 20 until 20 answer. A record
 * costs 2 R2 reads (record.json, manifest.json): at most 200 (about $0.00007 at $0.36 a million), a fifth of the 1,000
 * subrequests a Workers Paid request may make, beside the verifications of the 20 answered. Honest entries are one a
 * signed file or report; made-up ids and proofs not sealed cost no read (one D1 statement a shard drops them), so only
 * more than 100 entries naming other sealed proofs, listed before the genuine one, could still hide it (docs/adr/0062,
 * "The index confirmed").
 */
const MOST_PROOFS_READ = 100;

/** A file holding the bytes, with its proof and the database of that proof's shard. */
export interface FileMatch {
  file: FileRow;
  proof: ProofRow;
  db: Database;
}

/** What the public look-up by hash found signed or reported (docs/adr/0062); originals are the named proof's alone. */
export interface HashLookup {
  sha256: string;
  /** Files holding these bytes as signed (their proofs not yet checked sealed). */
  signed: FileMatch[];
  /** Reports with these bytes, each with the database of its proof's shard. */
  reports: { report: ProofReportRow; db: Database }[];
}

/**
 * The look-up of a SHA-256, from one R2 list of the hash index (up to 1,000 keys). The keys are only what they say:
 * anyone able to write to the bucket can put one (forger session 7, G7). So each shard an id names keeps, in one
 * statement, those of its ids that are sealed proofs, whose files are read (`MOST_PROOFS_READ` at most), and is asked
 * for a report of that hash (its row in D1 is what counts). Signed files and reports made before the index have no
 * entry and all live in shard 00 (the only database then): when no proof the index names answers (no entry listed,
 * or only entries naming nothing that holds the bytes), shard 00 is searched by its own queries, as it always was.
 * Signed bytes and a report name their proof (they carry its manifest): one found through the index is the only one.
 */
export async function hashLookup(env: Env, sha256: string): Promise<HashLookup> {
  const indexed = await indexedByShard(env, sha256);
  const [signed, reports] = await Promise.all([
    signedInIndexed(env, sha256, indexed),
    Promise.all(indexed.map(async ({ db }) => (await reportsWithHash(db, sha256, 2)).map((report) => ({ report, db })))),
  ]);
  if (signed.length > 0 || reports.flat().length > 0) return { sha256, signed, reports: reports.flat() };
  const first = shardDatabase(env, FIRST_SHARD);
  const [signedBefore, reportsBefore] = await Promise.all([filesSignedWithHash(first, sha256, MOST_FILE_MATCHES), reportsWithHash(first, sha256, 2)]);
  return {
    sha256,
    signed: signedBefore.map((row) => ({ ...row, db: first })),
    reports: reportsBefore.map((report) => ({ report, db: first })),
  };
}

/** The ids the index lists, by the shard each names, in key order (an id naming a shard this deployment lacks was never minted here). */
async function indexedByShard(env: Env, sha256: string): Promise<{ db: Database; ids: string[] }[]> {
  const byShard = new Map<ShardCode, string[]>();
  for (const id of await proofsIndexedUnder(env, sha256)) {
    const shard = shardOfId(id);
    if (shardBinding(env, shard) === undefined) continue;
    const ids = byShard.get(shard) ?? [];
    ids.push(id);
    byShard.set(shard, ids);
  }
  return [...byShard].map(([shard, ids]) => ({ db: shardDatabase(env, shard), ids }));
}

/**
 * The files of the proofs listed holding the bytes as signed: in each shard, one statement keeps the sealed proofs;
 * their files are read in key order, 20 proofs at a time, until 20 answer or `MOST_PROOFS_READ` were read.
 */
async function signedInIndexed(env: Env, sha256: string, indexed: { db: Database; ids: string[] }[]): Promise<FileMatch[]> {
  const sealed = await Promise.all(indexed.map(async ({ db, ids }) => (await sealedProofsAmong(db, ids, MOST_PROOFS_READ)).map((proof) => ({ proof, db }))));
  const toRead = sealed
    .flat()
    .sort((a, b) => (a.proof.id < b.proof.id ? -1 : 1))
    .slice(0, MOST_PROOFS_READ);
  const found: FileMatch[] = [];
  for (let start = 0; start < toRead.length && found.length < MOST_FILE_MATCHES; start += MOST_FILE_MATCHES) {
    const byShard = new Map<Database, ProofRow[]>();
    for (const { proof, db } of toRead.slice(start, start + MOST_FILE_MATCHES)) byShard.set(db, [...(byShard.get(db) ?? []), proof]);
    const read = await Promise.all(
      [...byShard].map(async ([db, ofProofs]) => (await proofsFilesWithHash(db, env, ofProofs, sha256, false)).map((row) => ({ ...row, db }))),
    );
    found.push(...read.flat());
  }
  return found;
}
