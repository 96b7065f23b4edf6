import { env } from "cloudflare:workers";
import { database } from "../../../src/db/client.ts";
import { files } from "../../../src/db/schema/index.ts";
import { findProofById, proofFiles } from "../../../src/storage/proofs-read.ts";
import type { FileRow } from "../../../src/storage/rows.ts";

/**
 * A proof's files as the service reads them, in capture order: a sealed proof's from its record in R2, no row of them
 * being left in D1 (docs/adr/0065). `binding`: the D1 database of the proof's shard.
 */
export async function filesOfProof(proofId: string, binding: D1Database = env.DB): Promise<FileRow[]> {
  const db = database(binding);
  const proof = await findProofById(db, proofId);
  if (proof === null) throw new Error(`no proof ${proofId} in this database`);
  return (await proofFiles(db, env, [proof])).get(proofId) ?? [];
}

/** One file of a proof, as {@link filesOfProof} reads it. */
export async function fileOfProof(proofId: string, fileId: string, binding: D1Database = env.DB): Promise<FileRow> {
  const file = (await filesOfProof(proofId, binding)).find((one) => one.id === fileId);
  if (file === undefined) throw new Error(`no file ${fileId} in proof ${proofId}`);
  return file;
}

/**
 * Makes a proof sealed here look as one sealed before its record existed (before migration 0024, and before the hash
 * indexes): its files' rows back in D1, whole, and `sealed_record` 0, as production still holds such proofs.
 */
export async function asSealedBeforeTheRecord(proofId: string, binding: D1Database = env.DB): Promise<void> {
  const db = database(binding);
  for (const file of await filesOfProof(proofId, binding)) await db.insert(files).values(file);
  await binding.prepare("UPDATE proofs SET sealed_record = 0, sealed_record_sha256 = NULL WHERE id = ?").bind(proofId).run();
}
