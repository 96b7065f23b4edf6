import type { DomainContext } from "../domain/context.ts";
import { proofUrls } from "../proofs/present-proof.ts";
import { proofFiles } from "../storage/proofs-read.ts";
import { filesMatchingHash } from "../storage/verification-matches.ts";
import { proofVerification } from "./verify-proof.ts";

/**
 * The sealed proofs holding a file with this SHA-256 as signed, and the proof named (`proofId`) if it holds it as
 * received, each verified again. Original bytes are anyone's: another proof holding the same ones is never
 * named (docs/adr/0060).
 */
export async function sealedProofsHoldingFile({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env">; input: { sha256: string; proofId: string | null } }) {
  const { db, env } = ctx;
  const { sha256, proofId } = input;
  const rows = await filesMatchingHash(db, sha256, proofId, 20);
  const data = [];
  for (const row of rows.filter((candidate) => candidate.proof.status === "sealed")) {
    const all = (await proofFiles(db, env, [row.proof])).get(row.proof.id) ?? [];
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
