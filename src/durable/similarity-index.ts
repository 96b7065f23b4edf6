import { DurableObject } from "cloudflare:workers";
import {
  bandEntries,
  type HexPrint,
  INSERT_BAND,
  packPrints,
  PRINT_BYTES,
  SIMILARITY_INDEX_SCHEMA,
  UPSERT_FILE,
  unpackPrint,
  VARIANTS_PER_FILE,
} from "./similarity-index-layout.ts";

/** A sealed photo or video as the index keeps it: its prints, variant 0 first (docs/adr/0052, 0059). */
export interface IndexedFile {
  fileId: string;
  proofId: string;
  stepId: string;
  kind: "photo" | "video";
  prints: HexPrint[];
}

/** One look-up statement: the values of one of the four pHash bands, and the rows it returns at most. */
export interface BandQuery {
  band: number;
  values: number[];
  limit: number;
}

/** A print the look-up found. */
export interface IndexedPrint extends HexPrint {
  fileId: string;
  proofId: string;
  stepId: string;
  kind: "photo" | "video";
  /** 0: the whole picture (a video's middle frame); 1 to 5: a crop (a video's other frames). */
  variant: number;
}

type FileRow = { file: number; file_id: string; proof_id: string; step_id: string; video: number; prints: ArrayBuffer; variant: number };

/**
 * The similarity index of one organization and mode, in one of its shards (docs/adr/0064, 0070): its sealed files'
 * perceptual prints, looked up by band. Written before the batch that seals their proof, so a print may be here
 * whose proof is not (yet) sealed: the caller keeps only candidates of sealed proofs.
 */
export class SimilarityIndex extends DurableObject {
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      for (const statement of SIMILARITY_INDEX_SCHEMA) ctx.storage.sql.exec(statement);
    });
  }

  /** Writes the files' prints, replacing those a file had (a sealing run again, a backfill run twice): idempotent. */
  store(files: readonly IndexedFile[]): void {
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      for (const file of files) {
        if (file.prints.length > VARIANTS_PER_FILE) throw new RangeError(`file ${file.fileId} has ${file.prints.length} prints`);
        const previous = sql.exec<Pick<FileRow, "file" | "prints">>("SELECT file, prints FROM files WHERE file_id = ?", file.fileId).toArray()[0];
        if (previous !== undefined) this.removeBands(previous.file, new Uint8Array(previous.prints));
        const { file: key } = sql
          .exec<Pick<FileRow, "file">>(UPSERT_FILE, file.fileId, file.proofId, file.stepId, file.kind === "video" ? 1 : 0, packPrints(file.prints))
          .one();
        file.prints.forEach((print, variant) => {
          for (const band of bandEntries(print.phash)) sql.exec(INSERT_BAND, band, key * VARIANTS_PER_FILE + variant);
        });
      }
    });
  }

  /**
   * The prints of other proofs than `excludedProofId` sharing a band value of each query, at most its limit each,
   * once each: what ADR 0041's statements returned from D1, by the same values and bounds.
   */
  candidates(excludedProofId: string, queries: readonly BandQuery[]): IndexedPrint[] {
    const found = new Map<string, IndexedPrint>();
    for (const { band, values, limit } of queries) {
      const rows = this.ctx.storage.sql.exec<FileRow>(
        `SELECT f.file_id, f.proof_id, f.step_id, f.video, f.prints, b.print % ${VARIANTS_PER_FILE} AS variant FROM bands b JOIN files f ON f.file = b.print / ${VARIANTS_PER_FILE} WHERE b.band IN (${values.map(() => "?").join(", ")}) AND f.proof_id != ? LIMIT ?`,
        ...values.map((value) => band * 65_536 + value),
        excludedProofId,
        limit,
      );
      for (const row of rows) {
        const print = unpackPrint(new Uint8Array(row.prints), row.variant);
        found.set(`${row.file_id}/${row.variant}`, {
          fileId: row.file_id,
          proofId: row.proof_id,
          stepId: row.step_id,
          kind: row.video === 1 ? "video" : "photo",
          variant: row.variant,
          ...print,
        });
      }
    }
    return [...found.values()];
  }

  private removeBands(file: number, prints: Uint8Array): void {
    for (let variant = 0; variant * PRINT_BYTES < prints.length; variant++)
      for (const band of bandEntries(unpackPrint(prints, variant).phash))
        this.ctx.storage.sql.exec("DELETE FROM bands WHERE band = ? AND print = ?", band, file * VARIANTS_PER_FILE + variant);
  }
}
