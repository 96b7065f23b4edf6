import { randomBytes } from "node:crypto";
import PDFDocument from "pdfkit";

/**
 * An unsigned PDF as the report's renderer writes it (pdfkit, PDF/A-3b, an attachment, two pages), with
 * `attachmentBytes` of incompressible data attached to reach a report's size.
 */
export async function unsignedPdf(attachmentBytes = 1024): Promise<Uint8Array> {
  const doc = new PDFDocument({ size: "A4", pdfVersion: "1.7", subset: "PDF/A-3b", lang: "en", tagged: true });
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => doc.on("end", resolve));
  doc.file(randomBytes(attachmentBytes), { name: "data.bin", type: "application/octet-stream" });
  doc.text("Evidence report - TEST");
  doc.addPage().text("Annex");
  doc.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}
