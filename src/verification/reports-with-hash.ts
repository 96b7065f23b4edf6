import type { DomainContext } from "../domain/context.ts";
import { proofUrls } from "../proofs/present-proof.ts";
import { publicProofOrThrow } from "./find-public-proof.ts";
import { proofVerification } from "./verify-proof.ts";
import type { HashLookup } from "./hash-lookup.ts";

/**
 * The sealed reports whose SHA-256 this is (docs/adr/0056): "the sealed report of proof X" (or the pair report
 * kept with the after X), each with that proof's verification, as a file match answers. A report's bytes name
 * its proof (its attachments are that proof's sealed manifest), so at most one proof answers (found by hashLookup,
 * docs/adr/0062).
 */
export async function sealedReportsWithHash({ ctx, input }: { ctx: Pick<DomainContext, "env">; input: HashLookup }) {
  const data = [];
  for (const { report, db } of input.reports) {
    const { proof, files } = await publicProofOrThrow({ ctx: { db, env: ctx.env }, input: { id: report.proofId } });
    const verification = await proofVerification(ctx.env, proof, files);
    data.push({
      proof_id: proof.id,
      file_id: null,
      match: report.kind === "pair" ? ("pair_report" as const) : ("report" as const),
      verification: { status: verification.status, test_mode: verification.test_mode, checks: verification.checks },
      verification_url: proofUrls(ctx.env.API_BASE_URL, proof.id).verification_url,
    });
  }
  return data;
}
