import type { DomainContext } from "../domain/context.ts";
import { databaseOfId, FIRST_SHARD, shardDatabase } from "../db/shards.ts";
import { proofUrls } from "../proofs/present-proof.ts";
import { observedProofFiles } from "../storage/proofs-read.ts";
import { filesSignedWithHash, proofFilesWithHash } from "../storage/verification-matches.ts";
import { proofVerification } from "./verify-proof.ts";
import type { HashLookup } from "./hash-lookup.ts";

/** The most files answered for one hash: the same bytes sealed many times need not be listed to the last. */
export const MOST_FILE_MATCHES = 20;

/**
 * The sealed proofs holding a file with this SHA-256 as signed, and the proof named (`proofId`) if it holds it as
 * received, each verified again. Original bytes are anyone's: another proof holding the same ones is never
 * named (docs/adr/0060). `indexed`: the proofs the hash index names for it (docs/adr/0062), each read in the shard
 * its id names, as is the proof named; shard 00 is searched as a whole only when `beforeTheIndex` (hashLookup).
 */
export async function sealedProofsHoldingFile({ ctx, input }: { ctx: Pick<DomainContext, "env">; input: HashLookup & { proofId: string | null } }) {
  const { env } = ctx;
  const { sha256, proofId, indexed } = input;
  const named = [...new Set([...indexed, ...(proofId === null ? [] : [proofId])])];
  const inTheirShards = await Promise.all(
    named.map(async (id) => {
      // An id naming no shard of this deployment was never minted here: no match, as for any unknown proof.
      const db = databaseOfId(env, id);
      return db === null ? [] : (await proofFilesWithHash(db, env, id, sha256, id === proofId)).map((row) => ({ ...row, db }));
    }),
  );
  const first = shardDatabase(env, FIRST_SHARD);
  const beforeTheIndex = input.beforeTheIndex ? (await filesSignedWithHash(first, sha256, MOST_FILE_MATCHES)).map((row) => ({ ...row, db: first })) : [];
  const answered = new Set<string>();
  const data = [];
  for (const row of [...beforeTheIndex, ...inTheirShards.flat()]) {
    if (row.proof.status !== "sealed" || answered.has(row.file.id) || answered.size === MOST_FILE_MATCHES) continue;
    answered.add(row.file.id);
    // A match found in D1's rows stands; a record that cannot give the proof's files makes its verification fail, never a 500.
    const all = (await observedProofFiles(row.db, env, [row.proof])).get(row.proof.id) ?? [];
    const verification = await proofVerification(env, row.proof, all);
    data.push({
      proof_id: row.proof.id,
      file_id: row.file.id,
      match: row.file.signedSha256 === sha256 ? ("signed" as const) : ("original" as const),
      verification: { status: verification.status, test_mode: verification.test_mode, checks: verification.checks },
      verification_url: proofUrls(env.API_BASE_URL, row.proof.id).verification_url,
    });
  }
  return data;
}
