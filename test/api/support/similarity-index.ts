import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { unpackPrint, VARIANTS_PER_FILE } from "../../../src/durable/similarity-index-layout.ts";

/** A print as the similarity index holds it (docs/adr/0064), with the four band values its entries say. */
export interface IndexedPrintRow {
  file_id: string;
  proof_id: string;
  step_id: string;
  variant: number;
  phash: string;
  dhash: string;
  bands: number[];
}

/**
 * The prints of the organization's and mode's index whose proof or file is `id`, in file then variant order: the
 * index of its home shard, or of its write shard `shard` (docs/adr/0070).
 */
export async function indexedPrints(organizationId: string, id: string, mode: "test" | "live" = "test", shard?: string): Promise<IndexedPrintRow[]> {
  const stub = env.SIMILARITY_INDEX.get(env.SIMILARITY_INDEX.idFromName(`${organizationId}:${mode}${shard === undefined ? "" : `:${shard}`}`));
  return runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    const files = sql
      .exec<{ file: number; file_id: string; proof_id: string; step_id: string; prints: ArrayBuffer }>(
        "SELECT file, file_id, proof_id, step_id, prints FROM files WHERE proof_id = ? OR file_id = ? ORDER BY file",
        id,
        id,
      )
      .toArray();
    return files.flatMap(({ file, file_id, proof_id, step_id, prints }) =>
      Array.from({ length: prints.byteLength / 16 }, (_, variant) => ({
        file_id,
        proof_id,
        step_id,
        variant,
        ...unpackPrint(new Uint8Array(prints), variant),
        bands: sql
          .exec<{ band: number }>("SELECT band FROM bands WHERE print = ? ORDER BY band", file * VARIANTS_PER_FILE + variant)
          .toArray()
          .map(({ band }) => band % 65_536),
      })),
    );
  });
}

/** How many rows the D1 table `file_fingerprints` holds for the proof: none since the index (docs/adr/0064). */
export const d1FingerprintRows = async (proofId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM file_fingerprints WHERE proof_id = ?").bind(proofId).first<{ n: number }>())!.n;
