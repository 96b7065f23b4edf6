import type { DomainContext } from "../domain/context.ts";
import { databaseOfId } from "../db/shards.ts";
import { proofUrls } from "../proofs/present-proof.ts";
import { observedProofFiles } from "../storage/proofs-read.ts";
import { namedProofFilesWithHash } from "../storage/verification-matches.ts";
import type { Env } from "../env.ts";
import { proofVerification } from "./verify-proof.ts";
import { type FileMatch, type HashLookup, MOST_FILE_MATCHES } from "./hash-lookup.ts";

/**
 * The sealed proofs holding a file with this SHA-256 as signed (`signed`: what the hash index, or shard 00 before it,
 * found, src/verification/hash-lookup.ts), and the proof named (`proofId`) if it holds it as received, each verified
 * again. Original bytes are anyone's: another proof holding the same ones is never named (docs/adr/0060), and the
 * proof named is read in the shard its id names.
 */
export async function sealedProofsHoldingFile({ ctx, input }: { ctx: Pick<DomainContext, "env">; input: HashLookup & { proofId: string | null } }) {
  const { env } = ctx;
  const { sha256, proofId, signed } = input;
  const named = await namedHolding(env, proofId, sha256);
  const answered = new Set<string>();
  const data = [];
  for (const row of [...signed, ...named]) {
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

/** The proof named, if it holds the bytes as received or signed, read in the shard its id names. */
async function namedHolding(env: Env, proofId: string | null, sha256: string): Promise<FileMatch[]> {
  // An id naming no shard of this deployment was never minted here: no match, as for any unknown proof.
  const db = proofId === null ? null : databaseOfId(env, proofId);
  return db === null || proofId === null ? [] : (await namedProofFilesWithHash(db, env, proofId, sha256)).map((row) => ({ ...row, db }));
}
