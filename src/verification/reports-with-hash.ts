import type { DomainContext } from "../domain/context.ts";
import { proofUrls } from "../proofs/present-proof.ts";
import { reportsWithHash } from "../storage/proof-reports.ts";
import { publicProofOrThrow } from "./find-public-proof.ts";
import { proofVerification } from "./verify-proof.ts";

/**
 * The sealed reports whose SHA-256 this is (docs/adr/0056): "the sealed report of proof X" (or the pair report
 * kept with the after X), each with that proof's verification, as a file match answers. A report's bytes name
 * its proof (its attachments are that proof's sealed manifest), so at most one proof answers.
 */
export async function sealedReportsWithHash({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env">; input: { sha256: string } }) {
  const data = [];
  for (const report of await reportsWithHash(ctx.db, input.sha256, 2)) {
    const { proof, files } = await publicProofOrThrow({ ctx, input: { id: report.proofId } });
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
