import type { SealContext } from "../seal-job.ts";

/**
 * What sealing a PDF takes from the sealer: the proof's sealing identity of its mode (`seal`, the one that
 * signs manifest.p7s, docs/adr/0027: the test identity for a test proof), the service root that issued it
 * (`trustAnchorPem`), the proof's timestamp authority (`authority`) and the CRL source (`crls`).
 */
export type PdfSealContext = Pick<SealContext, "seal" | "trustAnchorPem" | "authority" | "crls"> & {
  /** The job was aborted: no timestamp or CRL is asked for after it fires. */
  signal?: AbortSignal;
};

/**
 * Seals `pdf` (a complete, unsigned PDF with a classic cross-reference table, as pdfkit writes it) as PAdES
 * B-LTA by incremental updates that never rewrite its bytes: a signature by `context.seal` with a signature
 * timestamp, a DSS with the chains and their CRLs, then a document timestamp from `context.authority` over
 * the whole document. Throws as the seal job does when the authority or a CRL cannot be had.
 */
export async function sealPdf(pdf: Uint8Array, context: PdfSealContext): Promise<Uint8Array> {
  context.signal?.throwIfAborted();
  throw new Error(`sealPdf: not yet available (${pdf.byteLength} bytes)`);
}
