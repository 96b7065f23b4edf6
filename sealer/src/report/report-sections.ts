import type { ReportJob, ReportLanguage, ReportProof } from "../../../shared/report-protocol.ts";
import { boundedCache } from "../../../shared/bounded-cache.ts";
import { COLOURS, CONTENT_WIDTH, type Doc, drawQrCode, ensureSpace, PAGE } from "./page-frame.ts";
import type { ReportMessages } from "./report-messages.ts";
import { reportWarnings } from "./report-warnings.ts";

/** One formatter per report language (four): making one costs about a millisecond, and a report formats dozens of times. */
const utcFormats = boundedCache<ReportLanguage, Intl.DateTimeFormat>({ maxEntries: 8 });

/** A time in the report's language, in UTC and saying so (the page's format: a reader's zone is unknown on paper). */
export function utcTime(iso: string | Date, language: ReportLanguage): string {
  const format = utcFormats.getOrSet(language, () => new Intl.DateTimeFormat(language, { dateStyle: "long", timeStyle: "long", timeZone: "UTC" }));
  return format.format(new Date(iso));
}

const LABEL_WIDTH = 150;
const GAP = 10;

/** A row of a facts table: the label muted on the left, the value on the right (`mono` for identifiers). */
export function factRow(doc: Doc, label: string, value: string, options: { mono?: boolean; size?: number } = {}) {
  const size = options.size ?? 9.5;
  const valueWidth = CONTENT_WIDTH - LABEL_WIDTH - GAP;
  doc.font(options.mono ? "mono" : "regular").fontSize(options.mono ? size - 1.5 : size);
  const valueHeight = doc.heightOfString(value, { width: valueWidth });
  doc.font("regular").fontSize(size);
  const height = Math.max(valueHeight, doc.heightOfString(label, { width: LABEL_WIDTH }));
  ensureSpace(doc, height + 4);
  const y = doc.y;
  doc.fillColor(COLOURS.muted).text(label, PAGE.left, y, { width: LABEL_WIDTH });
  doc
    .font(options.mono ? "mono" : "regular")
    .fontSize(options.mono ? size - 1.5 : size)
    .fillColor(COLOURS.ink)
    .text(value, PAGE.left + LABEL_WIDTH + GAP, y + (options.mono ? 1 : 0), { width: valueWidth });
  doc.y = y + height + 4;
  doc.x = PAGE.left;
}

export function sectionHeading(doc: Doc, text: string, space = 60) {
  ensureSpace(doc, space);
  doc.moveDown(0.6);
  doc.font("bold").fontSize(12.5).fillColor(COLOURS.ink).text(text, PAGE.left, doc.y, { width: CONTENT_WIDTH });
  const y = doc.y + 2;
  doc
    .save()
    .moveTo(PAGE.left, y)
    .lineTo(PAGE.left + CONTENT_WIDTH, y)
    .lineWidth(0.6)
    .strokeColor(COLOURS.rule)
    .stroke()
    .restore();
  doc.y = y + 6;
}

const QR_SIZE = 96;

/**
 * The title and what the document is, with the QR code of the verification page at the top right of the first
 * page (a reader scans it before reading on; the page gives the current verdict).
 */
export function titleBlock(doc: Doc, job: ReportJob, m: ReportMessages) {
  const top = doc.y;
  const width = CONTENT_WIDTH - QR_SIZE - 18;
  drawQrCode(doc, job.verification_url, PAGE.left + CONTENT_WIDTH - QR_SIZE + 4, top - 8, QR_SIZE);
  doc
    .font("regular")
    .fontSize(7.5)
    .fillColor(COLOURS.muted)
    .text(m.checkOnline, PAGE.left + CONTENT_WIDTH - QR_SIZE, top + QR_SIZE - 6, { width: QR_SIZE, align: "center" });
  doc
    .font("bold")
    .fontSize(21)
    .fillColor(COLOURS.ink)
    .text(job.kind === "pair" ? m.titlePair : m.title, PAGE.left, top, { width });
  doc.moveDown(0.15);
  doc.font("regular").fontSize(10).fillColor(COLOURS.muted).text(m.subtitle, PAGE.left, doc.y, { width });
  doc.y = Math.max(doc.y + 12, top + QR_SIZE + 10);
  doc.x = PAGE.left;
}

const badgeWord = (proof: ReportProof, m: ReportMessages) =>
  proof.verdict.status === "valid" ? (proof.mode === "test" ? m.badge_valid_test : m.badge_valid) : m[`badge_${proof.verdict.status}`];

/**
 * The verdict of each proof as a badge (the word itself, so that it survives black and white printing) and the
 * verification core's sentence beside it. Green only for a verified live proof; a test proof's badge is red.
 */
export function verdictBlock(doc: Doc, job: ReportJob, m: ReportMessages) {
  const words = job.proofs.map((proof) =>
    job.kind === "pair" ? `${proof.side === "before" ? m.before : m.after}${m.colon}${badgeWord(proof, m)}` : badgeWord(proof, m),
  );
  // One width for every badge of the report, so that their sentences start in one column.
  doc.font("bold").fontSize(12);
  const badgeWidth = Math.min(Math.max(...words.map((word) => doc.widthOfString(word))) + 24, 250);
  const sentenceX = PAGE.left + badgeWidth + 14;
  const sentenceWidth = CONTENT_WIDTH - badgeWidth - 14;
  job.proofs.forEach((proof, index) => {
    const colour = proof.verdict.status === "valid" && proof.mode === "live" ? COLOURS.valid : COLOURS.invalid;
    doc.font("regular").fontSize(10);
    const height = Math.max(30, doc.heightOfString(proof.verdict.sentence, { width: sentenceWidth }) + 10);
    ensureSpace(doc, height + 8);
    const y = doc.y;
    doc.save().roundedRect(PAGE.left, y, badgeWidth, height, 4).fill(colour).restore();
    doc
      .font("bold")
      .fontSize(12)
      .fillColor("#ffffff")
      .text(words[index]!, PAGE.left + 12, y + height / 2 - 8, { width: badgeWidth - 24, lineBreak: false, ellipsis: true });
    doc
      .font("regular")
      .fontSize(10)
      .fillColor(COLOURS.ink)
      .text(proof.verdict.sentence, sentenceX, y + 5, { width: sentenceWidth });
    doc.y = y + height + 8;
  });
  doc.x = PAGE.left;
}

/** The authority as the page names it: the simulated one in the reader's words, a real one by its own name. */
const authorityOf = (proof: ReportProof, m: ReportMessages) =>
  `${proof.mode === "test" ? m.testAuthority : proof.timestamp.authority}, ${proof.timestamp.qualified ? m.qualified : m.notQualified}`;

/** A row of a pair's facts: the label, then the before's value and the after's side by side. */
function pairRow(doc: Doc, label: string, values: [string, string], style: "plain" | "mono" | "head" = "plain") {
  const width = (CONTENT_WIDTH - LABEL_WIDTH - GAP - GAP) / 2;
  const mono = style === "mono";
  const font = mono ? "mono" : style === "head" ? "bold" : "regular";
  const size = mono ? 8 : 9.5;
  doc.font(font).fontSize(size);
  const height = Math.max(...values.map((value) => doc.heightOfString(value, { width })), 12);
  ensureSpace(doc, height + 4);
  const y = doc.y;
  doc.font("regular").fontSize(9.5).fillColor(COLOURS.muted).text(label, PAGE.left, y, { width: LABEL_WIDTH });
  for (const [column, value] of values.entries()) {
    const x = PAGE.left + LABEL_WIDTH + GAP + column * (width + GAP);
    doc
      .font(font)
      .fontSize(size)
      .fillColor(COLOURS.ink)
      .text(value, x, y + (mono ? 1 : 0), { width });
  }
  doc.y = y + height + 4;
  doc.x = PAGE.left;
}

/** Who, what and when: the organization, the client's references, and each proof's certified time and authority. */
export function factsBlock(doc: Doc, job: ReportJob, m: ReportMessages) {
  const first = job.proofs[0]!;
  doc.moveDown(0.4);
  if (job.organization !== null) factRow(doc, m.organization, job.organization);
  factRow(doc, m.reference, first.external_reference);
  factRow(doc, m.party, m[first.party]);
  if (first.category !== null) factRow(doc, m.category, first.category);
  if (first.location_reference !== null) factRow(doc, m.locationReference, first.location_reference);
  if (job.kind === "pair") {
    const [before, after] = job.proofs as [ReportProof, ReportProof];
    const both = (value: (proof: ReportProof) => string): [string, string] => [value(before), value(after)];
    doc.moveDown(0.2);
    pairRow(doc, "", [m.before, m.after], "head");
    pairRow(
      doc,
      m.stage,
      both((proof) => proof.stage ?? "—"),
    );
    pairRow(
      doc,
      m.certifiedTime,
      both((proof) => utcTime(proof.timestamp.gen_time, job.language)),
    );
    pairRow(
      doc,
      m.authority,
      both((proof) => authorityOf(proof, m)),
    );
    pairRow(
      doc,
      m.sealedBy,
      both((proof) => proof.seal?.certificate_subject ?? "—"),
    );
    pairRow(
      doc,
      m.fileCount,
      both((proof) => String(proof.files.length)),
    );
    pairRow(
      doc,
      m.proof,
      both((proof) => proof.id),
      "mono",
    );
    return;
  }
  if (first.stage !== null) factRow(doc, m.stage, first.stage);
  factRow(doc, m.certifiedTime, utcTime(first.timestamp.gen_time, job.language));
  factRow(doc, m.authority, authorityOf(first, m));
  if (first.seal !== null) factRow(doc, m.sealedBy, first.seal.certificate_subject);
  factRow(doc, m.fileCount, String(first.files.length));
  factRow(doc, m.proof, first.id, { mono: true });
}

/** The warning summary, in a tinted box above everything else a reader weighs. */
export function warningsBlock(doc: Doc, job: ReportJob, m: ReportMessages) {
  const warnings = reportWarnings(job, m);
  const lines = [...(warnings.length === 0 ? [{ text: m.noWarnings, files: "" }] : warnings), { text: m.warningReported, files: "" }];
  const innerWidth = CONTENT_WIDTH - 28;
  const texts = lines.map((line) => (line.files === "" ? line.text : `${line.text} (${line.files})`));
  doc.font("regular").fontSize(9.5);
  const bodyHeight = texts.reduce((sum, text) => sum + doc.heightOfString(text, { width: innerWidth - 12 }) + 4, 0);
  doc.font("bold").fontSize(11);
  const titleHeight = doc.heightOfString(m.warningsTitle, { width: innerWidth });
  const height = titleHeight + bodyHeight + 24;
  doc.moveDown(0.6);
  ensureSpace(doc, Math.min(height, 400));
  const y = doc.y;
  doc.save().rect(PAGE.left, y, CONTENT_WIDTH, height).fill(COLOURS.warningPanel).restore();
  doc.save().rect(PAGE.left, y, 4, height).fill(COLOURS.warningRule).restore();
  doc
    .font("bold")
    .fontSize(11)
    .fillColor(COLOURS.warningInk)
    .text(m.warningsTitle, PAGE.left + 14, y + 10, { width: innerWidth });
  doc.y += 4;
  for (const text of texts) {
    const lineY = doc.y;
    doc
      .font("bold")
      .fontSize(9.5)
      .fillColor(COLOURS.warningInk)
      .text("•", PAGE.left + 14, lineY, { lineBreak: false });
    doc
      .font("regular")
      .fontSize(9.5)
      .fillColor(COLOURS.ink)
      .text(text, PAGE.left + 26, lineY, { width: innerWidth - 12 });
    doc.y += 4;
  }
  doc.y = Math.max(doc.y, y + height) + 4;
  doc.x = PAGE.left;
}

/** What the proof proves, what only the device reported, what it does not prove: the page's sentences. */
export function claimsBlock(doc: Doc, job: ReportJob, m: ReportMessages) {
  const claims = job.proofs[job.proofs.length - 1]!.claims;
  const list = (heading: string, sentences: string[]) => {
    if (sentences.length === 0) return;
    sectionHeading(doc, heading, 70);
    for (const sentence of sentences) {
      doc.font("regular").fontSize(9.5);
      ensureSpace(doc, doc.heightOfString(sentence, { width: CONTENT_WIDTH - 14 }) + 4);
      const y = doc.y;
      doc.fillColor(COLOURS.muted).text("•", PAGE.left + 2, y, { lineBreak: false });
      doc.fillColor(COLOURS.ink).text(sentence, PAGE.left + 14, y, { width: CONTENT_WIDTH - 14 });
      doc.y += 3;
    }
  };
  list(m.proves, claims.proven);
  list(m.reportedOnly, claims.reported_by_device);
  list(m.notProven, claims.not_proven);
  doc.x = PAGE.left;
}

/** Where the proof is checked and where this report is kept, and when it was made (its verdict is that moment's). */
export function addressesBlock(doc: Doc, job: ReportJob, m: ReportMessages, madeAt: Date) {
  // The two addresses and the note under them stay together.
  ensureSpace(doc, 70);
  factRow(doc, m.verificationPage, job.verification_url, { mono: true });
  factRow(doc, m.reportAddress, job.report_url, { mono: true, size: 9 });
  doc.moveDown(0.2);
  doc
    .font("regular")
    .fontSize(8.5)
    .fillColor(COLOURS.muted)
    .text(m.madeAt.replace("{time}", utcTime(madeAt, job.language)), PAGE.left, doc.y, { width: CONTENT_WIDTH });
  doc.x = PAGE.left;
}
