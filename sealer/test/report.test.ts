import { test } from "node:test";
import sharp from "sharp";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReportJob } from "../../shared/report-protocol.ts";
import { REPORT_LANGUAGES } from "../../shared/report-protocol.ts";
import { reportPictures } from "../src/report/pictures.ts";
import { renderReport } from "../src/report/render-report.ts";
import { REPORT_MESSAGES } from "../src/report/report-messages.ts";
import { utcTime } from "../src/report/report-sections.ts";
import { pairJob, singleProofJob } from "./report-fixtures.ts";
import { base, sources } from "./storage-stand-in.ts";

const folder = mkdtempSync(join(tmpdir(), "report-test-"));
const MADE_AT = new Date("2026-11-26T18:00:00Z");

async function made(job: ReportJob, name: string): Promise<string> {
  const pictures = await reportPictures(
    job.proofs.flatMap((proof) => proof.files),
    AbortSignal.timeout(60_000),
  );
  const path = join(folder, `${name}.pdf`);
  writeFileSync(path, await renderReport(job, pictures, MADE_AT));
  return path;
}

/** The text pdftotext reads, with the layout's line breaks and spacing folded to single spaces. */
const text = (path: string, page?: number) =>
  execFileSync("pdftotext", [...(page === undefined ? [] : ["-f", String(page), "-l", String(page)]), path, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");

const pageCount = (path: string) => Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [path], { encoding: "utf8" }))![1]);

test("a live proof's report says its verdict, reference, party, certified time and every fingerprint", async () => {
  const job = await singleProofJob(base, sources, "en", "live", 3);
  const path = await made(job, "live-en");
  const all = text(path);
  const proof = job.proofs[0]!;
  assert.match(all, /VERIFIED/);
  assert.ok(all.includes(proof.verdict.sentence.replace(/\s+/g, " ")), "the verdict's sentence");
  assert.ok(all.includes(proof.external_reference));
  assert.ok(all.includes("Party provider"));
  assert.ok(all.includes(utcTime(proof.timestamp.gen_time, "en").replace(/\s+/g, " ")), "the certified time");
  for (const file of proof.files) {
    assert.ok(all.includes(file.sha256), `${file.id} as received`);
    assert.ok(all.includes(file.signed_sha256), `${file.id} sealed`);
    assert.ok(all.includes(utcTime(file.received_at, "en").replace(/\s+/g, " ")), `${file.id} received at`);
  }
  assert.ok(!/TEST/.test(all), "a live report never says TEST");
  // A reader is warned before the photos: the gallery file and its signal are on the first page.
  const first = text(path, 1);
  assert.ok(first.includes("Chosen from the device's files"));
  assert.ok(first.includes("names a camera maker or model. (Photo 2)"));
  assert.ok(first.indexOf("Warnings") < first.indexOf("Reference"), "the warnings come before the facts");
});

test("qpdf finds no error, the fonts are embedded and the proof's files are attached", async () => {
  const path = await made(await singleProofJob(base, sources, "fr", "live", 2), "check-fr");
  const check = spawnSync("qpdf", ["--check", path], { encoding: "utf8" });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const fonts = execFileSync("pdffonts", [path], { encoding: "utf8" }).trim().split("\n").slice(2);
  assert.ok(fonts.length >= 3);
  for (const font of fonts) assert.match(font, /yes yes yes/, `embedded, subset, unicode: ${font}`);
  const attached = execFileSync("pdfdetach", ["-list", path], { encoding: "utf8" });
  for (const name of ["manifest.json", "manifest.p7s", "proof.tsr"]) assert.ok(attached.includes(name), name);
  const metadata = execFileSync("qpdf", ["--show-object=trailer", path], { encoding: "utf8" });
  assert.match(metadata, /\/ID/);
});

test("zbarimg decodes the verification page's address from the QR code pdftoppm renders of the first page", async () => {
  const job = await singleProofJob(base, sources, "de", "live", 1);
  const path = await made(job, "qr-de");
  execFileSync("pdftoppm", ["-r", "150", "-f", "1", "-l", "1", "-png", path, join(folder, "qr-de")]);
  const decoded = execFileSync("zbarimg", ["--quiet", "--raw", join(folder, "qr-de-1.png")], { encoding: "utf8" }).trim();
  assert.equal(decoded, job.verification_url);
});

test("a test proof's report says TEST on every page and never shows a verified badge alone", async () => {
  const path = await made(await singleProofJob(base, sources, "es", "test", 3), "test-es");
  const pages = pageCount(path);
  assert.ok(pages >= 3);
  for (let page = 1; page <= pages; page++) assert.match(text(path, page), /PRUEBA DE TEST/, `page ${page}`);
  assert.ok(text(path, 1).includes("VERIFICADA, SOLO TEST"));
});

test("a pair's report sets before beside after with each side's own time and every fingerprint", async () => {
  const job = await pairJob(base, sources, "en", "live");
  // A gallery file on each side: one warning names both.
  for (const proof of job.proofs) proof.files[1]!.reported.method = "file";
  const path = await made(job, "pair-en");
  const all = text(path);
  const [before, after] = job.proofs;
  for (const proof of [before!, after!]) {
    assert.ok(all.includes(utcTime(proof.timestamp.gen_time, "en").replace(/\s+/g, " ")), `${proof.side} certified time`);
    for (const file of proof.files) assert.ok(all.includes(file.sha256) && all.includes(file.signed_sha256), `${proof.side} ${file.id}`);
  }
  const first = text(path, 1);
  assert.ok(first.includes("After: Photo 1, the same bytes as Before: Photo 1"), "the after's reused photo is named with its twin");
  assert.equal(first.split("Chosen from the device's files").length, 2, "one gallery warning for both sides");
  assert.ok(first.includes("(Before: Photo 2; After: Photo 2)"));
  assert.ok(all.includes("No shot at this position."), "the after's missing shot leaves its place empty");
  const attached = execFileSync("pdfdetach", ["-list", path], { encoding: "utf8" });
  for (const name of ["before-manifest.json", "after-manifest.json", "after-proof.tsr"]) assert.ok(attached.includes(name), name);
});

test("every language's report opens with its own title", async () => {
  for (const language of REPORT_LANGUAGES) {
    const path = await made(await singleProofJob(base, sources, language, "live", 1), `title-${language}`);
    assert.ok(text(path, 1).includes(REPORT_MESSAGES[language].title), language);
  }
});

test("a photo's transparent parts are drawn on white, and its picture is a JPEG of at most 1,280 px", async () => {
  const png = await sharp({ create: { width: 2000, height: 1000, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png()
    .toBuffer();
  sources.set("/report/transparent", new Uint8Array(png));
  const [file] = (await singleProofJob(base, sources, "en", "live", 1)).proofs[0]!.files;
  const pictures = await reportPictures([{ ...file!, picture: { url: `${base}/report/transparent` } }], AbortSignal.timeout(30_000));
  const picture = pictures.get(file!.id)!;
  assert.deepEqual([picture.width, picture.height], [1280, 640]);
  const { data } = await sharp(picture.jpeg).raw().toBuffer({ resolveWithObject: true });
  assert.ok(data[0]! > 250 && data[1]! > 250 && data[2]! > 250, `white, not ${data.subarray(0, 3).join(",")}`);
});

test("a video has no picture but its place, its number and its fingerprints, under a heading that names videos", async () => {
  const job = await singleProofJob(base, sources, "en", "live", 2);
  const video = job.proofs[0]!.files[1]!;
  Object.assign(video, { kind: "video", content_type: "video/mp4", picture: null });
  const all = text(await made(job, "video-en"));
  assert.ok(all.includes("Photos and videos"));
  assert.ok(all.includes("Video 2 · Step: Front of the car"));
  assert.ok(all.includes("No picture in this report for this file"));
  assert.ok(all.includes(video.sha256) && all.includes(video.signed_sha256));
});
