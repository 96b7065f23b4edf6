import PDFDocument from "pdfkit";
import { encode } from "uqr";
import { REPORT_FONTS } from "./fonts.ts";

/** A4 in points, and the frame every page shares. */
export const PAGE = { width: 595.28, height: 841.89, left: 50, right: 50, top: 64, bottom: 64 } as const;
export const CONTENT_WIDTH = PAGE.width - PAGE.left - PAGE.right;

/** Sober colours that stay readable in black and white: the badge says its verdict in words too. */
export const COLOURS = {
  ink: "#1a1a1a",
  muted: "#555555",
  rule: "#c9c9c9",
  panel: "#f4f4f2",
  valid: "#1d6b3a",
  invalid: "#a3161a",
  test: "#a3161a",
  warningInk: "#6b4500",
  warningPanel: "#fff5dc",
  warningRule: "#d9a441",
} as const;

export type Doc = InstanceType<typeof PDFDocument>;

export interface DocumentMeta {
  title: string;
  language: string;
  madeAt: Date;
  /** Drawn at the top of every page of a test proof's report, and said in its footer. */
  testBanner: string | null;
}

/**
 * A new A4 document aiming at PDF/A-3b (XMP identification, sRGB output intent, every font embedded, files
 * attached with their relationship), its pages kept so that the footers are written once the page count is
 * known. Every page of a test proof's report opens with its red TEST band.
 */
export function newDocument(meta: DocumentMeta): Doc {
  const doc = new PDFDocument({
    size: "A4",
    margins: { top: PAGE.top, bottom: PAGE.bottom, left: PAGE.left, right: PAGE.right },
    pdfVersion: "1.7",
    subset: "PDF/A-3b",
    bufferPages: true,
    lang: meta.language,
    displayTitle: true,
    autoFirstPage: false,
    // Only what pdfkit also writes into the XMP (PDF/A wants the two to agree): no Subject, no ModDate.
    info: {
      Title: meta.title,
      Author: "Proof-sealing service",
      Creator: "Proof-sealing service",
      CreationDate: meta.madeAt,
    },
  });
  doc.registerFont("regular", REPORT_FONTS.regular);
  doc.registerFont("bold", REPORT_FONTS.bold);
  doc.registerFont("mono", REPORT_FONTS.mono);
  doc.on("pageAdded", () => {
    if (meta.testBanner !== null) testBand(doc, meta.testBanner);
    doc.font("regular").fontSize(9.5).fillColor(COLOURS.ink);
    doc.x = PAGE.left;
    doc.y = PAGE.top;
  });
  doc.addPage();
  return doc;
}

function testBand(doc: Doc, text: string) {
  doc.save().rect(0, 0, PAGE.width, 26).fill(COLOURS.test);
  doc.font("bold").fontSize(10).fillColor("#ffffff").text(text, PAGE.left, 8, { width: CONTENT_WIDTH, align: "center", lineBreak: false });
  doc.restore();
}

/** The lowest point content may reach on a page. */
export const contentBottom = () => PAGE.height - PAGE.bottom;

/** Starts a new page unless `height` points still fit below the cursor. */
export function ensureSpace(doc: Doc, height: number) {
  if (doc.y + height > contentBottom()) doc.addPage();
}

/** Each page's footer: the proof and the reference on the left, the page number on the right, a rule above. */
export function writeFooters(doc: Doc, left: string, pageLabel: (page: number, pages: number) => string) {
  const { start, count } = doc.bufferedPageRange();
  for (let index = start; index < start + count; index++) {
    doc.switchToPage(index);
    // Below the bottom margin: pdfkit would start a page for text written there, unless the margin is lifted.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const y = PAGE.height - 42;
    doc
      .save()
      .moveTo(PAGE.left, y - 6)
      .lineTo(PAGE.width - PAGE.right, y - 6)
      .lineWidth(0.5)
      .strokeColor(COLOURS.rule)
      .stroke()
      .restore();
    doc.font("regular").fontSize(7.5).fillColor(COLOURS.muted);
    doc.text(left, PAGE.left, y, { width: CONTENT_WIDTH * 0.75, lineBreak: false, ellipsis: true });
    doc.text(pageLabel(index - start + 1, count), PAGE.left, y, { width: CONTENT_WIDTH, align: "right", lineBreak: false });
    doc.page.margins.bottom = margin;
  }
}

/**
 * A QR code (ISO/IEC 18004, error correction M, uqr as the page's) drawn as filled squares at (x, y), `size`
 * points wide including the four-module quiet zone scanners need; returns nothing, the cursor is unchanged.
 */
export function drawQrCode(doc: Doc, text: string, x: number, y: number, size: number) {
  const modules = encode(text, { ecc: "M", border: 0 }).data;
  const unit = size / (modules.length + 8);
  doc.save().rect(x, y, size, size).fill("#ffffff");
  for (const [r, row] of modules.entries()) {
    for (const [c, dark] of row.entries()) if (dark) doc.rect(x + (c + 4) * unit, y + (r + 4) * unit, unit, unit);
  }
  doc.fill("#000000").restore();
}

/** The document's bytes once written. */
export function documentBytes(doc: Doc): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<Uint8Array>((resolve, reject) => {
    doc.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on("error", reject);
  });
  doc.end();
  return ended;
}
