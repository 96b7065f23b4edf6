import type { ReportJob, ReportProof } from "../../../shared/report-protocol.ts";
import { COLOURS, CONTENT_WIDTH, type Doc, documentBytes, ensureSpace, newDocument, PAGE, writeFooters } from "./page-frame.ts";
import type { ReportPicture } from "./pictures.ts";
import { REPORT_MESSAGES, type ReportMessages } from "./report-messages.ts";
import { pairPhotos, singlePhotos } from "./report-photos.ts";
import { addressesBlock, claimsBlock, factRow, factsBlock, sectionHeading, titleBlock, verdictBlock, warningsBlock } from "./report-sections.ts";

/** A root's SHA-256 as `openssl x509 -fingerprint -sha256` prints it, as the page shows it. */
const opensslFingerprint = (hex: string) => (hex.toUpperCase().match(/../g) ?? []).join(":");

/** The technical identifiers of one proof and of each of its files, for the people who check by hand. */
function annexOf(doc: Doc, job: ReportJob, proof: ReportProof, m: ReportMessages) {
  if (job.kind === "pair") sectionHeading(doc, proof.side === "before" ? m.before : m.after, 80);
  factRow(doc, m.proofId, proof.id, { mono: true });
  factRow(doc, m.manifestSha256, proof.manifest_sha256, { mono: true });
  factRow(doc, m.timestampSerial, proof.timestamp.serial, { mono: true });
  factRow(doc, m.timestampPolicy, proof.timestamp.policy, { mono: true });
  if (proof.seal !== null) {
    factRow(doc, m.sealCertificate, proof.seal.certificate_subject);
    factRow(doc, m.sealCertificateSha256, proof.seal.certificate_sha256, { mono: true });
  }
  if (proof.roots.timestamp_authority_root_sha256 !== null)
    factRow(doc, m.rootTsa, opensslFingerprint(proof.roots.timestamp_authority_root_sha256), { mono: true });
  if (proof.roots.c2pa_root_sha256 !== null) factRow(doc, m.rootC2pa, opensslFingerprint(proof.roots.c2pa_root_sha256), { mono: true });
  factRow(doc, m.package, proof.package_url, { mono: true });
  for (const file of [...proof.files].sort((a, b) => a.number - b.number)) {
    // A file's four rows stay on one page: its hashes never part from its name.
    ensureSpace(doc, 70);
    doc.moveDown(0.3);
    factRow(doc, `${m[file.kind]} ${file.number}`, file.step_label, { size: 9.5 });
    factRow(doc, m.fileId, file.id, { mono: true, size: 8.5 });
    factRow(doc, m.sha256Received, file.sha256, { mono: true, size: 8.5 });
    factRow(doc, m.sha256Sealed, file.signed_sha256, { mono: true, size: 8.5 });
  }
}

const base64Bytes = (base64: string) => Buffer.from(base64, "base64");

/**
 * The proof's manifest.json, manifest.p7s and proof.tsr attached byte for byte as PDF/A-3 associated files
 * (relationship Source: the report is made from them), so that the report alone carries what it reports.
 * A pair's are named by side.
 */
function attach(doc: Doc, job: ReportJob, m: ReportMessages) {
  sectionHeading(doc, m.attachments, 60);
  doc.font("regular").fontSize(9).fillColor(COLOURS.ink).text(m.attachmentsHelp, PAGE.left, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.4);
  for (const proof of job.proofs) {
    const prefix = job.kind === "pair" ? `${proof.side}-` : "";
    const when = new Date(proof.sealed_at);
    const files = [
      { name: "manifest.json", type: "application/json", bytes: proof.attachments.manifest_json_base64 },
      { name: "manifest.p7s", type: "application/pkcs7-signature", bytes: proof.attachments.manifest_p7s_base64 },
      { name: "proof.tsr", type: "application/timestamp-reply", bytes: proof.attachments.proof_tsr_base64 },
    ];
    for (const file of files) {
      if (file.bytes === null) continue;
      // pdfkit writes AFRelationship from `relationship`, which its type declarations do not list yet.
      const options = {
        name: `${prefix}${file.name}`,
        type: file.type,
        description: `${proof.id}: ${file.name}`,
        creationDate: when,
        modifiedDate: when,
        relationship: "Source",
      };
      doc.file(base64Bytes(file.bytes), options);
      doc
        .font("mono")
        .fontSize(8)
        .text(`${prefix}${file.name}`, PAGE.left + 14, doc.y, { width: CONTENT_WIDTH - 14 });
    }
  }
}

/**
 * The unsigned PDF evidence report of a proof or a before/after pair (docs/adr/0044), in the job's language:
 * the title with the QR code of the verification page; each proof's verdict as a badge; the warning summary; who,
 * what and when, and where to check it; what it proves and does not; the photos large (a pair's side by side, aligned by step and
 * number); the annex of identifiers; the proof's own files attached. TEST in a band on every page of a test
 * proof's report and in every footer. It says only what the job says the service observed or was reported.
 */
export async function renderReport(job: ReportJob, pictures: ReadonlyMap<string, ReportPicture>, madeAt: Date): Promise<Uint8Array> {
  const m = REPORT_MESSAGES[job.language];
  const test = job.proofs.some((proof) => proof.mode === "test");
  const subject = job.proofs.map((proof) => proof.id).join(" / ");
  const doc = newDocument({
    title: `${job.kind === "pair" ? m.titlePair : m.title}: ${job.proofs[0]!.external_reference}`,
    language: job.language,
    madeAt,
    testBanner: test ? m.testBanner : null,
  });
  titleBlock(doc, job, m);
  verdictBlock(doc, job, m);
  warningsBlock(doc, job, m);
  factsBlock(doc, job, m);
  addressesBlock(doc, job, m, madeAt);
  claimsBlock(doc, job, m);
  if (job.kind === "pair") pairPhotos(doc, job, pictures, m);
  else singlePhotos(doc, job, pictures, m);
  sectionHeading(doc, m.annex, 160);
  for (const proof of job.proofs) annexOf(doc, job, proof, m);
  attach(doc, job, m);
  const footer = `${test ? "TEST · " : ""}${m.proof} ${subject} · ${m.reference} ${job.proofs[0]!.external_reference}`;
  writeFooters(doc, footer, (page, pages) => m.page.replace("{page}", String(page)).replace("{pages}", String(pages)));
  return documentBytes(doc);
}
