import type { DomainContext } from "../domain/context.ts";
import { ApiError } from "../errors/api-error.ts";
import { findProofById, observedProofFiles } from "../storage/proofs-read.ts";
import type { FileRow } from "../storage/rows.ts";
import { RECORD_FAULT_WORDS, SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";
import type { ObservedFiles } from "./verify-proof.ts";

/**
 * Any proof by its id (the public routes need no credential) with its files in capture order, or what was observed
 * of the sealed record that should have given them (the verdict presents it; a route serving bytes refuses).
 */
export async function publicProofOrThrow({ ctx, input }: { ctx: Pick<DomainContext, "db" | "env">; input: { id: string } }) {
  const proof = await findProofById(ctx.db, input.id);
  if (proof === null) throw new ApiError("proof_not_found");
  const files: ObservedFiles = (await observedProofFiles(ctx.db, ctx.env, [proof])).get(proof.id) ?? [];
  return { proof, files };
}

/** The files of a proof whose bytes a route serves: when its sealed record cannot give them, `sealed_record_unavailable`. */
export function filesToServe(files: ObservedFiles): FileRow[] {
  if (files instanceof SealedRecordUnavailable)
    throw new ApiError("sealed_record_unavailable", {
      detail: `The service's record of this proof's files ${RECORD_FAULT_WORDS[files.fault]}: its files cannot be served or packaged.`,
    });
  return files;
}
