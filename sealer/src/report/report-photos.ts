import type { ReportFile, ReportJob, ReportLanguage, ReportProof } from "../../../shared/report-protocol.ts";
import { COLOURS, CONTENT_WIDTH, contentBottom, type Doc, PAGE } from "./page-frame.ts";
import type { ReportPicture } from "./pictures.ts";
import type { ReportMessages } from "./report-messages.ts";
import { sectionHeading, utcTime } from "./report-sections.ts";

type Pictures = ReadonlyMap<string, ReportPicture>;

/** The files of a proof grouped by step, in the order the proof numbers them. */
function steps(files: ReportFile[]): { id: string; label: string; files: ReportFile[] }[] {
  const grouped = new Map<string, { id: string; label: string; files: ReportFile[] }>();
  for (const file of [...files].sort((a, b) => a.number - b.number)) {
    const step = grouped.get(file.step_id) ?? { id: file.step_id, label: file.step_label, files: [] };
    step.files.push(file);
    grouped.set(file.step_id, step);
  }
  return [...grouped.values()];
}

/** The picture fitted into a `width` × `height` box at (x, y), centred on a light panel; or the panel saying why there is none. */
function pictureBox(doc: Doc, picture: ReportPicture | undefined, x: number, y: number, width: number, height: number, m: ReportMessages): number {
  if (picture === undefined) {
    const boxHeight = 60;
    doc.save().rect(x, y, width, boxHeight).fill(COLOURS.panel).restore();
    doc
      .font("regular")
      .fontSize(9)
      .fillColor(COLOURS.muted)
      .text(m.noPicture, x + 10, y + 16, { width: width - 20, align: "center" });
    return boxHeight;
  }
  const scale = Math.min(width / picture.width, height / picture.height);
  const drawnWidth = picture.width * scale;
  const drawnHeight = picture.height * scale;
  doc.image(picture.jpeg, x + (width - drawnWidth) / 2, y, { width: drawnWidth, height: drawnHeight });
  doc
    .save()
    .rect(x + (width - drawnWidth) / 2, y, drawnWidth, drawnHeight)
    .lineWidth(0.5)
    .strokeColor(COLOURS.rule)
    .stroke()
    .restore();
  return drawnHeight;
}

/** "Photo 3 · Step: Front" alone; in a pair's column, where the step heads the row, "After · Photo 3". */
const fileTitle = (file: ReportFile, m: ReportMessages, side: string) =>
  side === "" ? `${m[file.kind]} ${file.number} · ${m.step}${m.colon}${file.step_label}` : `${side}${m[file.kind]} ${file.number}`;

function reportedLine(file: ReportFile, m: ReportMessages): string {
  const parts = [`${m.method}${m.colon}${m[`method_${file.reported.method}`]}`];
  if (file.reported.device_time !== null) parts.push(`${m.deviceTime}${m.colon}${file.reported.device_time}`);
  const place = file.reported.geolocation;
  if (place !== null) parts.push(`${m.location}${m.colon}${place.latitude}, ${place.longitude} (${m.accuracy} ${place.accuracy_m} m)`);
  return parts.join(" · ");
}

/**
 * The caption under a photo: what it is, when the service received it, both fingerprints, what the phone
 * reported (named as reported), and the file's own signals. `narrow`: a pair's column, where each SHA-256
 * goes on a line of its own.
 */
function caption(
  doc: Doc,
  file: ReportFile,
  x: number,
  width: number,
  m: ReportMessages,
  language: ReportLanguage,
  side: string,
  narrow: boolean,
  sameAs: string | null = null,
) {
  doc
    .font("bold")
    .fontSize(10)
    .fillColor(COLOURS.ink)
    .text(fileTitle(file, m, side), x, doc.y, { width });
  doc
    .font("regular")
    .fontSize(8.5)
    .text(`${m.receivedAt}${m.colon}${utcTime(file.received_at, language)}`, x, doc.y, { width });
  const hash = (label: string, value: string) => {
    if (narrow) {
      doc.font("regular").fontSize(8).fillColor(COLOURS.muted).text(label, x, doc.y, { width });
      // Two halves of 32 digits: a column is too narrow for 64 at a legible size (the annex has them whole).
      doc
        .font("mono")
        .fontSize(7.2)
        .fillColor(COLOURS.ink)
        .text(`${value.slice(0, 32)}\n${value.slice(32)}`, x, doc.y, { width });
      doc.y += 1;
      return;
    }
    const y = doc.y;
    doc.font("regular").fontSize(8).fillColor(COLOURS.muted).text(`${label}${m.colon.trimEnd()}`, x, y, { width: 130 });
    doc
      .font("mono")
      .fontSize(7.4)
      .fillColor(COLOURS.ink)
      .text(value, x + 132, y + 0.6, { width: width - 132, lineBreak: false });
    doc.y = y + 11;
  };
  hash(m.sha256Received, file.sha256);
  hash(m.sha256Sealed, file.signed_sha256);
  doc.font("regular").fontSize(8).fillColor(COLOURS.muted).text(reportedLine(file, m), x, doc.y, { width });
  for (const signal of file.signals) doc.font("bold").fontSize(8).fillColor(COLOURS.warningInk).text(`• ${signal.sentence}`, x, doc.y, { width });
  if (sameAs !== null) {
    const sentence = m.sameBytesAs.replace("{file}", sameAs);
    doc
      .font("bold")
      .fontSize(8)
      .fillColor(COLOURS.warningInk)
      .text(`• ${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}`, x, doc.y, { width });
  }
  doc.fillColor(COLOURS.ink);
}

/** Room a caption takes (measured, so a photo and its caption never part across pages). */
function captionHeight(doc: Doc, file: ReportFile, width: number, m: ReportMessages, narrow: boolean): number {
  doc.font("regular").fontSize(8);
  const signals = file.signals.reduce((sum, signal) => sum + doc.heightOfString(`• ${signal.sentence}`, { width }), 0);
  const reported = doc.heightOfString(reportedLine(file, m), { width });
  doc.font("bold").fontSize(10);
  const title = doc.heightOfString(fileTitle(file, m, `${m.after} · `), { width });
  return title + 12 + (narrow ? 70 : 22) + reported + signals + 6;
}

const SINGLE_PICTURE_HEIGHT = 245;

/** A single proof's photos, step by step, each as large as half a page allows, with its caption. */
export function singlePhotos(doc: Doc, job: ReportJob, pictures: Pictures, m: ReportMessages) {
  const proof = job.proofs[0]!;
  // On the page the claims end on when the first photo fits there: no page left nearly empty.
  sectionHeading(doc, proof.files.some((file) => file.kind === "video") ? m.photosAndVideos : m.photos, SINGLE_PICTURE_HEIGHT + 110);
  for (const step of steps(proof.files)) {
    for (const file of step.files) {
      const picture = pictures.get(file.id);
      const pictureHeight = picture === undefined ? 60 : Math.min(SINGLE_PICTURE_HEIGHT, (CONTENT_WIDTH / picture.width) * picture.height);
      const needed = pictureHeight + captionHeight(doc, file, CONTENT_WIDTH, m, false) + 14;
      if (doc.y + needed > contentBottom()) doc.addPage();
      const drawn = pictureBox(doc, picture, PAGE.left, doc.y, CONTENT_WIDTH, SINGLE_PICTURE_HEIGHT, m);
      doc.y += drawn + 6;
      caption(doc, file, PAGE.left, CONTENT_WIDTH, m, job.language, "", false);
      doc.y += 14;
    }
  }
  doc.x = PAGE.left;
}

const COLUMN_GAP = 18;
const COLUMN_WIDTH = (CONTENT_WIDTH - COLUMN_GAP) / 2;
const PAIR_PICTURE_HEIGHT = 150;

/** The two columns' heads, on each page of the pair's photos: which proof, and its own certified date and time. */
function columnHeads(doc: Doc, before: ReportProof, after: ReportProof, m: ReportMessages, language: ReportLanguage) {
  const y = doc.y;
  const head = (proof: ReportProof, label: string, x: number) => {
    doc.save().rect(x, y, COLUMN_WIDTH, 36).fill(COLOURS.panel).restore();
    doc
      .font("bold")
      .fontSize(10.5)
      .fillColor(COLOURS.ink)
      .text(label, x + 8, y + 5, { width: COLUMN_WIDTH - 16, lineBreak: false });
    doc
      .font("regular")
      .fontSize(7.5)
      .fillColor(COLOURS.muted)
      .text(`${m.certifiedTime}${m.colon}${utcTime(proof.timestamp.gen_time, language)}`, x + 8, y + 21, { width: COLUMN_WIDTH - 12, lineBreak: false });
  };
  head(before, m.before, PAGE.left);
  head(after, m.after, PAGE.left + COLUMN_WIDTH + COLUMN_GAP);
  doc.y = y + 44;
}

/**
 * A pair's photos side by side: for each step (in the before's order), the before's shot n beside the after's
 * shot n, with the same numbers the two proofs give them; each column carries its own date and time.
 */
export function pairPhotos(doc: Doc, job: ReportJob, pictures: Pictures, m: ReportMessages) {
  const [before, after] = job.proofs as [ReportProof, ReportProof];
  const heading = job.proofs.some((proof) => proof.files.some((file) => file.kind === "video")) ? m.photosAndVideos : m.photos;
  sectionHeading(doc, `${heading}${m.colon}${m.before} / ${m.after}`, PAIR_PICTURE_HEIGHT + 260);
  columnHeads(doc, before, after, m, job.language);
  const afterSteps = new Map(steps(after.files).map((step) => [step.id, step]));
  const stepList = [...steps(before.files), ...steps(after.files).filter((step) => !steps(before.files).some((known) => known.id === step.id))];
  for (const step of stepList) {
    const beforeFiles = before.files.filter((file) => file.step_id === step.id).sort((a, b) => a.position - b.position);
    const afterFiles = afterSteps.get(step.id)?.files.sort((a, b) => a.position - b.position) ?? [];
    const rows = Math.max(beforeFiles.length, afterFiles.length);
    let stepShown = false;
    for (let row = 0; row < rows; row++) {
      const cells = [beforeFiles[row], afterFiles[row]] as const;
      const captionRoom = Math.max(...cells.map((file) => (file === undefined ? 20 : captionHeight(doc, file, COLUMN_WIDTH, m, true))));
      const needed = PAIR_PICTURE_HEIGHT + captionRoom + (stepShown ? 14 : 40);
      if (doc.y + needed > contentBottom()) {
        doc.addPage();
        columnHeads(doc, before, after, m, job.language);
        stepShown = false;
      }
      if (!stepShown) {
        doc.font("bold").fontSize(11).fillColor(COLOURS.ink).text(`${m.step}${m.colon}${step.label}`, PAGE.left, doc.y, { width: CONTENT_WIDTH });
        doc.y += 4;
        stepShown = true;
      }
      const top = doc.y;
      let lowest = top;
      cells.forEach((file, column) => {
        const x = PAGE.left + column * (COLUMN_WIDTH + COLUMN_GAP);
        doc.y = top;
        if (file === undefined) {
          doc
            .font("regular")
            .fontSize(9)
            .fillColor(COLOURS.muted)
            .text(m.noShot, x, top + 8, { width: COLUMN_WIDTH });
        } else {
          const drawn = pictureBox(doc, pictures.get(file.id), x, top, COLUMN_WIDTH, PAIR_PICTURE_HEIGHT, m);
          doc.y = top + drawn + 5;
          // A photo whose bytes are the other side's (a reused photo) says which, beside the picture itself.
          const other = (column === 0 ? after : before).files.find((candidate) => candidate.sha256 === file.sha256);
          const sameAs = other === undefined ? null : `${column === 0 ? m.after : m.before} · ${m[other.kind]} ${other.number}`;
          caption(doc, file, x, COLUMN_WIDTH, m, job.language, `${column === 0 ? m.before : m.after} · `, true, sameAs);
        }
        lowest = Math.max(lowest, doc.y);
      });
      doc.y = lowest + 14;
    }
  }
  doc.x = PAGE.left;
}
