import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { findProofById, proofFiles } from "../storage/proofs-read.ts";

/** Any proof by its id (the public routes need no credential) with its files in capture order. */
export async function publicProofOrThrow({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env">; input: { id: string } }) {
  const proof = await findProofById(ctx.db, input.id);
  if (proof === null) throw new ApiError("proof_not_found");
  return { proof, files: (await proofFiles(ctx.db, ctx.env, [proof])).get(proof.id) ?? [] };
}
