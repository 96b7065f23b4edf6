import { html, type Html } from "../../lib/html.ts";
import { LANGUAGE_NAMES, PAGE_LANGUAGES, PAGE_MESSAGES, type PageLanguage } from "./messages.ts";
import { textDirection } from "../../i18n/resolve-locale.ts";
import type { PageStep } from "./step-labels.ts";
import { CLAIM_TEXTS } from "../claims.ts";
import { qrSvg } from "./qr-code.ts";
import { icon } from "./icons.ts";
import { fileName, numberFiles, type Messages, type NumberedFile, type Numbering, type PageProof } from "./page-proof.ts";
import { alteredFiles, eagerThumbnails, pairGallery, singleGallery, timeOf, type GalleryContext } from "./gallery.ts";
import { pageWarnings, verdictBadge, warningSummary } from "./warnings.ts";
import { technicalDetails } from "./technical.ts";

export type { PageProof } from "./page-proof.ts";

/** The three lists of claims in the reader's language, from the codes the public JSON carries. */
function claimLists(claims: PageProof["claims"], lang: PageLanguage, m: Messages): Html {
  const list = (name: keyof PageProof["claims"], heading: string) =>
    claims[name].length === 0
      ? ""
      : html`<h2>${heading}</h2><ul class="claims" data-testid="claims-${name}">${claims[name].map((claim) => html`<li data-code="${claim.code}">${CLAIM_TEXTS[claim.code][lang]}</li>`)}</ul>`;
  return html`${list("proven", m.claimsProven!)}${list("reported_by_device", m.claimsReported!)}${list("not_proven", m.claimsNotProven!)}`;
}

/**
 * The verdict of the one verification core in one sentence (pending and failed: the proof's state). A test
 * proof says so in the verdict itself, whatever the verdict: it proves nothing in law.
 */
function verdictOf(proof: PageProof, m: Messages): string {
  const { status, verdict, test_mode } = proof.verification;
  if (status === "pending" || status === "failed") return m[status] ?? status;
  if (verdict === "verified") return (test_mode ? m.verdict_verified_test : m.verdict_verified) ?? verdict;
  const sentence = m[`verdict_${verdict}`] ?? verdict;
  return test_mode ? `${sentence} ${m.testSuffix}` : sentence;
}

const RESULT_WORDS = { pass: "passed", fail: "failedCheck", not_checked: "notChecked" } as const;

/**
 * Every check of the core as a sentence a reader understands, with its result, under the core's name (a
 * file's checks name the file as the gallery does); the details stay in the technical details.
 */
function checkList(proof: PageProof, m: Messages, numbering: Numbering): Html {
  return html`<ul class="checks" data-testid="checks">${proof.verification.checks.map((check) => {
    const [base, fileId] = check.name.split(":") as [string, string | undefined];
    const file = fileId === undefined ? undefined : proof.files.find((candidate) => candidate.id === fileId);
    const which = file ? ` (${fileName(file, m, numbering)})` : "";
    return html`<li class="${check.result}" data-code="${check.name}">${m[`check_${base}`] ?? check.name}${which} <strong>${m[RESULT_WORDS[check.result]]!}</strong></li>`;
  })}</ul>`;
}

/** The service's record of the proof's files is missing or altered: the core's `files_record` check failed. */
const filesRecordLost = (proof: PageProof) => proof.verification.checks.some((check) => check.name === "files_record" && check.result === "fail");

/** Where the files would be, when their record is lost: none is listed, and the page says why rather than showing an empty proof. */
function filesRecordNote(proof: PageProof, m: Messages): Html | "" {
  return filesRecordLost(proof) ? html`<p class="files-record" role="note" data-testid="files-record-unavailable">${m.filesRecordUnavailable!}</p>` : "";
}

/** Which of the proof's PDF reports are made: its own, and its pair's (kept with the after). */
export interface MadeReports {
  proof: boolean;
  pair: boolean;
}

/**
 * The documents a reader files or keeps: the sealed PDF report and the pair's, each once made (their routes
 * answer 404 report_not_ready until then), the verification package, and the page printed.
 */
function documents(proof: PageProof, reports: MadeReports, m: Messages): Html | "" {
  if (proof.status !== "sealed") return "";
  const report = (name: string, label: string, testid: string) =>
    html`<li><a class="button" href="${new URL(`/v1/public/proofs/${proof.id}/${name}`, proof.package_url).href}" data-testid="${testid}">${label}</a></li>`;
  return html`<section class="documents screen-only" aria-labelledby="documents-title"><h2 id="documents-title">${m.documents!}</h2><ul>
${reports.proof ? report("report.pdf", m.report!, "report") : ""}${reports.pair ? report("pair-report.pdf", m.pairReport!, "pair-report") : ""}
<li><a class="button secondary" href="${proof.package_url}" download data-testid="download">${m.download!}</a></li>
<li><button type="button" class="secondary" data-print>${m.print!}</button></li></ul></section>`;
}

/**
 * "Check a file": a large labelled area to choose or drop a file (the native input inside it keeps the keyboard
 * and the screen reader's way in); check.js hashes the file on the device and says match or no match in words,
 * a pictogram and a colour. The hashes are this proof's files', each with the name the gallery gives it.
 */
function checkFile(proof: PageProof, m: Messages, numbering: Numbering): Html {
  const files: Record<string, string> = {};
  for (const file of proof.files) {
    const name = fileName(file, m, numbering);
    files[file.sha256] = `${name} (${m.matchOriginal})`;
    if (file.signed_sha256) files[file.signed_sha256] = `${name} (${m.matchSigned})`;
  }
  return html`<section class="check screen-only" aria-labelledby="check-title"><h2 id="check-title">${m.checkTitle!}</h2>
<label class="dropzone" data-testid="check-drop">${icon("upload", "dropzone-icon")}<span class="dropzone-main">${m.checkChoose!}</span><span class="dropzone-help" id="check-help">${m.checkHelp!}</span><input type="file" id="check-file" class="visually-hidden" data-files="${JSON.stringify(files)}" data-is="${m.matchIs!}" data-checking="${m.checking!}" data-no-match-help="${m.noMatchHelp!}" data-fingerprint="${m.itsFingerprint!}" aria-describedby="check-help"></label>
<div id="check-result" role="status" aria-live="polite" data-testid="check-result"></div></section>`;
}

/** The facts of the proof: who asked, the reference, the party, the stage, the other side of a pair, the certified time. */
function facts(proof: PageProof, partner: PageProof | null, lang: PageLanguage, m: Messages, organizationName: string | null): Html {
  // Our simulated authority is named in the reader's language; a real one keeps its own name.
  const authority = proof.timestamp ? (proof.mode === "test" ? m.testAuthority! : proof.timestamp.authority) : "";
  return html`<section aria-labelledby="facts-title"><h2 id="facts-title">${m.aboutProof!}</h2><dl class="facts">
${organizationName ? html`<dt>${m.organization!}</dt><dd data-testid="organization">${organizationName}</dd>` : ""}
<dt>${m.reference!}</dt><dd data-testid="reference">${proof.external_reference}</dd>
<dt>${m.party!}</dt><dd>${m[proof.party] ?? proof.party}</dd>
${proof.stage ? html`<dt>${m.stage!}</dt><dd>${proof.stage}</dd>` : ""}
${partner ? html`<dt>${m.comparedWith!}</dt><dd data-testid="compared-with">${proofLink(partner, proof.compare_to ? m.before! : m.after!, lang)}</dd>` : ""}
${proof.verification.files_checked_at ? html`<dt>${m.filesCheckedAt!}</dt><dd data-testid="files-checked-at">${timeOf(proof.verification.files_checked_at, lang, true)}</dd>` : ""}
${proof.timestamp ? html`<dt>${m.sealedAt!}</dt><dd data-testid="certified-time">${timeOf(proof.timestamp.gen_time, lang, true)}</dd><dt>${m.authority!}</dt><dd data-testid="authority">${m.authorityQualification!.replace("{authority}", () => authority).replace("{qualification}", () => (proof.timestamp!.qualified ? m.qualified! : m.notQualified!))}</dd>` : ""}
</dl></section>`;
}

/** A link to the other proof of a pair, named by its side and the day it was certified (its id is a technical detail). */
const proofLink = (proof: PageProof, heading: string, lang: PageLanguage) => {
  const day = proof.timestamp ? new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(proof.timestamp.gen_time)) : null;
  return html`<a href="/p/${proof.id}?lang=${lang}">${heading}${day ? html` · ${day}` : ""}</a>`;
};

/** The languages, folded into one control beside the title so that the verdict and the photos stay in the first screen. */
function languages(lang: PageLanguage, m: Messages): Html {
  const short = lang.split("-")[0]!.toUpperCase();
  return html`<details class="languages"><summary>${short}<span class="visually-hidden"> · ${m.language!}: ${LANGUAGE_NAMES[lang]}</span></summary><nav aria-label="${m.language!}">${PAGE_LANGUAGES.map((code) => html`<a href="?lang=${code}" lang="${code}" dir="${textDirection(code)}"${code === lang ? html` aria-current="page"` : ""}>${LANGUAGE_NAMES[code]}</a>`)}</nav></details>`;
}

/**
 * The human verification page, server-rendered (no inline script or style: strict CSP), telling the PDF
 * report's story in its order: the verdict as a badge, what to weigh, the photos (a pair aligned step by
 * step), the facts and claims, the documents, a file check, then the technical details.
 */
export function renderVerificationPage(
  proof: PageProof,
  partner: PageProof | null,
  steps: PageStep[],
  lang: PageLanguage,
  organizationName: string | null,
  reports: MadeReports,
): string {
  const m = PAGE_MESSAGES[lang];
  const [before, after] = partner === null ? [proof, null] : proof.compare_to ? [partner, proof] : [proof, partner];
  const beforeFiles = numberFiles(before, steps, after ? "before" : "single");
  const afterFiles = after ? numberFiles(after, steps, "after") : [];
  const numbering: Numbering = new Map([...beforeFiles, ...afterFiles].map((numbered): [string, NumberedFile] => [numbered.file.id, numbered]));
  const own = proof === before ? beforeFiles : afterFiles;
  const context: GalleryContext = {
    m,
    lang,
    eager: eagerThumbnails([...before.files, ...(after?.files ?? [])]),
    numbering,
    altered: alteredFiles([proof, partner]),
  };
  const warnings = pageWarnings(proof, partner, m, numbering, lang);
  const gallery = after ? pairGallery(before, after, steps, context) : singleGallery(proof, steps, context);
  return html`<!doctype html>
<html lang="${lang}" dir="${textDirection(lang)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${m.title!} ${proof.id}</title><link rel="stylesheet" href="/verify/style.css"><script type="module" src="/verify/check.js"></script><script type="module" src="/verify/local-time.js"></script></head>
<body data-copied="${m.copied!}" data-belongs="${m.belongs!}" data-not-belongs="${m.notBelongs!}">
${proof.verification.test_mode ? html`<p class="test-banner" data-testid="test-banner" role="note">${m.testBanner!}</p>` : ""}
<main>
<header class="page-head"><h1>${m.title!}</h1>${languages(lang, m)}</header>
<section class="verdict-card" aria-label="${m.verdictLabel!}"><div class="print-only record" data-testid="record">${qrSvg(proof.verification_url, m.scanToOpen!)}<p>${m.scanToOpen!}<br>${m.pageAddress!}<br><code dir="ltr">${proof.verification_url}</code></p></div>${verdictBadge(proof, warnings, m)}
<p class="verdict ${proof.verification.status}" data-testid="verdict" data-verdict="${proof.verification.verdict}">${verdictOf(proof, m)}</p></section>
${warningSummary(warnings, m)}
${filesRecordNote(proof, m)}
${gallery}
${facts(proof, partner, lang, m, organizationName)}
${claimLists(proof.claims, lang, m)}
${documents(proof, reports, m)}
${filesRecordLost(proof) ? "" : checkFile(proof, m, numbering)}
${proof.verification.checks.length > 0 ? html`<section class="checks-section" aria-labelledby="checks-title"><h2 id="checks-title">${m.checks!}</h2>${checkList(proof, m, numbering)}</section>` : ""}
${technicalDetails(proof, m, own, numbering)}
</main></body></html>`.toString();
}

/** The page for an identifier that names no proof, in the reader's language (the JSON twin answers `proof_not_found`). */
export function renderProofNotFoundPage(lang: PageLanguage): string {
  const m = PAGE_MESSAGES[lang];
  return html`<!doctype html>
<html lang="${lang}" dir="${textDirection(lang)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${m.notFoundTitle!}</title><link rel="stylesheet" href="/verify/style.css"></head>
<body><main data-code="proof_not_found"><h1>${m.notFoundTitle!}</h1><p>${m.notFoundBody!}</p></main></body></html>`.toString();
}
