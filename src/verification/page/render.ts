import { html, type Html } from "../../lib/html.ts";
import type { Verification } from "../verify-proof.ts";
import { PAGE_LANGUAGES, PAGE_MESSAGES, type PageLanguage } from "./messages.ts";
import type { PageStep } from "./step-labels.ts";
import { CLAIM_TEXTS, type ClaimCode } from "../claims.ts";
import { certifiedTimeUtc, readableSize } from "./certified-time.ts";
import { qrSvg } from "./qr-code.ts";
import { opensslFingerprint } from "../../../shared/trust-anchors.ts";

interface PageFile {
  id: string;
  step_id: string;
  kind: string;
  content_type: string;
  size: number;
  sha256: string;
  signed_sha256: string | null;
  url: string;
  thumbnail_url: string | null;
  observed: { received_at: string; decoded: { width: number | null; height: number | null; duration_ms: number | null } | null };
  reported_by_device: { method: string; device_time: string | null; geolocation: { latitude: number; longitude: number; accuracy_m: number } | null };
  earlier_content_credentials: { claim_generator: string | null; digital_source_types: string[] } | null;
  signals: { code: string; detail: string }[];
}

export interface PageProof {
  id: string;
  status: string;
  mode: string;
  external_reference: string;
  party: string;
  stage: string | null;
  compare_to: string | null;
  compared_by: string | null;
  files: PageFile[];
  timestamp: { gen_time: string; qualified: boolean; authority: string } | null;
  manifest_sha256: string | null;
  /** The proof seal's certificate (manifest.p7s); null: sealed before proofs were sealed as a whole. */
  seal: { certificate_subject: string; certificate_sha256: string } | null;
  trust_anchors: { timestamp_authority_root_sha256: string | null; c2pa_root_sha256: string | null } | null;
  package_url: string;
  verification_url: string;
  verification: Verification;
  claims: Record<"proven" | "reported_by_device" | "not_proven", { code: ClaimCode }[]>;
}

/** What the service observed, what the device only reported, and the signals: never mixed (docs/adr/0018). */
function fileFacts(file: PageFile, m: Record<string, string>, lang: PageLanguage): Html {
  const reported = file.reported_by_device;
  const place = reported.geolocation
    ? `${reported.geolocation.latitude}, ${reported.geolocation.longitude} (${m.accuracy} ${reported.geolocation.accuracy_m} m)`
    : "—";
  const earlier = file.earlier_content_credentials;
  // Closed on screen so that ten photos stay a gallery; printed open (style.css). The signals stay in sight.
  return html`<details class="file-facts"><summary>${m.captureFacts!}</summary><dl class="observed" data-testid="observed-${file.id}"><dt>${m.observed!} · ${m.receivedAt!}</dt><dd>${timeOf(file.observed.received_at, lang)}</dd></dl>
<dl class="reported" data-testid="reported-${file.id}"><dt>${m.reportedByDevice!} · ${m.method!}</dt><dd>${m[reported.method] ?? reported.method}</dd><dt>${m.deviceTime!}</dt><dd>${reported.device_time ? timeOf(reported.device_time, lang) : "—"}</dd><dt>${m.location!}</dt><dd>${place}</dd></dl>
${earlier ? html`<p class="earlier" data-testid="earlier-${file.id}">${m.earlierCredentials!}: ${earlier.claim_generator ?? "?"} (${earlier.digital_source_types.join(", ") || "—"})</p>` : ""}</details>
${file.signals.length > 0 ? html`<ul class="signals" data-testid="signals-${file.id}" aria-label="${m.signals!}">${file.signals.map((signal) => signalItem(signal, m))}</ul>` : ""}`;
}

/** Signals whose detail carries the sealer's figures (sizes, dates, EXIF names); the others' detail only repeats the sentence. */
const SIGNALS_WITH_FIGURES = new Set([
  "blank_frame",
  "image_smaller_than_declared",
  "similar_to_earlier_photo",
  "similar_within_proof",
  "camera_shot_has_camera_exif",
  "camera_shot_original_date_far",
  "camera_shot_format_not_from_capture_page",
  "dimensions_mismatch",
  "duration_mismatch",
  "device_time_far",
]);

/**
 * The warning summary near the verdict: each signal raised in the proof, once, as a sentence in the reader's
 * language with how many of its files carry it, so that a reader sees what to weigh before the gallery.
 */
function signalSummary(proof: PageProof, m: Record<string, string>): Html | "" {
  const counts = new Map<string, number>();
  for (const file of proof.files) for (const code of new Set(file.signals.map((signal) => signal.code))) counts.set(code, (counts.get(code) ?? 0) + 1);
  if (counts.size === 0) return "";
  const items = [...counts].map(
    ([code, count]) =>
      html`<li data-code="${code}">${m[`signal_${code}`] ?? code} <span class="signal-count">(${m.signalFileCount!.replace("{count}", String(count))})</span></li>`,
  );
  return html`<section class="signal-summary" data-testid="signal-summary" role="note"><h2>${m.signalSummary!}</h2><ul>${items}</ul></section>`;
}

/** A signal as a sentence in the reader's language, with the sealer's figures beside it as it wrote them (in English). */
function signalItem(signal: { code: string; detail: string }, m: Record<string, string>): Html {
  const sentence = m[`signal_${signal.code}`] ?? signal.detail;
  const figures = SIGNALS_WITH_FIGURES.has(signal.code) ? html` <span class="signal-detail" lang="en">(${signal.detail})</span>` : "";
  return html`<li data-code="${signal.code}">${sentence}${figures}</li>`;
}

/** The three lists of claims in the reader's language, from the codes the public JSON carries. */
function claimLists(claims: PageProof["claims"], lang: PageLanguage, m: Record<string, string>): Html {
  const list = (name: keyof PageProof["claims"], heading: string) =>
    claims[name].length === 0
      ? ""
      : html`<h2>${heading}</h2><ul class="claims" data-testid="claims-${name}">${claims[name].map((claim) => html`<li data-code="${claim.code}">${CLAIM_TEXTS[claim.code][lang]}</li>`)}</ul>`;
  return html`${list("proven", m.claimsProven!)}${list("reported_by_device", m.claimsReported!)}${list("not_proven", m.claimsNotProven!)}`;
}

/** A time in the page language, in UTC and saying so; with `local`, local-time.js adds the reader's own time beside it. */
const timeOf = (iso: string, lang: PageLanguage, local = false) =>
  html`<time datetime="${iso}"${local ? html` data-local` : ""}>${certifiedTimeUtc(iso, lang)}</time>`;

/** A video's duration as the sealer decoded it from the sealed bytes (m:ss); null: not decoded. */
function durationOf(file: PageFile): string | null {
  const duration = file.observed.decoded?.duration_ms;
  if (duration === null || duration === undefined) return null;
  const seconds = Math.round(duration / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** What the sealer decoded from the sealed bytes: a photo's pixels, a video's duration (m:ss). */
function decodedFacts(file: PageFile): string[] {
  const decoded = file.observed.decoded;
  if (!decoded) return [];
  const duration = durationOf(file);
  if (duration !== null) return [duration];
  return decoded.width && decoded.height ? [`${decoded.width}\u00a0×\u00a0${decoded.height}`] : [];
}

/**
 * Thumbnails loaded with the page: a typical proof's all (so that Print, and Chromium's page.pdf(), which
 * does not wait for lazy images, shows every photo), a long proof's first only, the others as the reader
 * scrolls (check.js loads them too before printing). 12 × at most 100 KB keeps the page far under 1.5 MB.
 */
const EAGER_THUMBNAILS = 12;
const eagerThumbnails = (files: PageFile[]): ReadonlySet<string> =>
  new Set(
    files
      .filter((file) => file.thumbnail_url)
      .slice(0, EAGER_THUMBNAILS)
      .map((file) => file.id),
  );

/** The short name of a file's format (HEIC, MP4…), from its content type. */
const formatName = (contentType: string) => (contentType.split("/")[1] ?? contentType).replace(/^quicktime$/, "mov").toUpperCase();

/**
 * The file's picture: the thumbnail the sealer made from the signed bytes (lazy, a few tens of kB, and a
 * tap on it opens the full file; the text link below is the accessible way there), or, when there is none
 * (a video, a HEIC photo libvips cannot decode), a tile that says what the file is instead of a picture.
 */
function preview(file: PageFile, m: Record<string, string>, eager: ReadonlySet<string>, altered: boolean): Html {
  if (file.thumbnail_url) {
    const loading = eager.has(file.id) ? "eager" : "lazy";
    const image = html`<img src="${file.thumbnail_url}" alt="" loading="${loading}" decoding="async" data-testid="thumbnail-${file.id}">`;
    // The thumbnail was made from the sealed bytes; a tap must not lead from it to a stored file that no longer matches them.
    return altered ? html`<span class="preview">${image}</span>` : html`<a class="preview" href="${file.url}" tabindex="-1" aria-hidden="true">${image}</a>`;
  }
  // Short enough for a 150 px tile: the link below says how to see the file.
  const format = formatName(file.content_type);
  const [big, small] = file.kind === "video" ? [durationOf(file) ?? format, `${m.kind_video} · ${format}`] : [format, m.noPreview!];
  return html`<p class="preview no-preview no-preview-${file.kind}" data-testid="no-preview-${file.id}"><span class="format">${big}</span><span>${small}</span></p>`;
}

/**
 * The page's own files in the order the gallery shows them (step by step), each numbered from 1: the tile and
 * the technical details (printed beside each other in the record) name a file alike, "Photo 3", so that a
 * reader can tell which hashes belong to which picture. A pair's other proof is numbered on its own page.
 */
function numberedFiles(proof: PageProof, steps: PageStep[]): Map<string, { file: PageFile; number: number; step: PageStep }> {
  const ordered = steps.flatMap((step) => proof.files.filter((file) => file.step_id === step.id).map((file) => ({ file, step })));
  return new Map(ordered.map(({ file, step }, i) => [file.id, { file, number: i + 1, step }]));
}

type Numbering = ReadonlyMap<string, { number: number }>;

/** "Photo 3": what the file is, with its number on this page when it is one of the page's own. */
const fileName = (file: PageFile, m: Record<string, string>, numbering: Numbering) => {
  const number = numbering.get(file.id)?.number;
  return `${m[`kind_${file.kind}`] ?? file.kind}${number ? ` ${number}` : ""}`;
};

/**
 * The link to a file's stored copy: the signed file while the latest re-hash found it as sealed; once found
 * altered, a warning that it no longer matches, and a link that says what it opens.
 */
function openLink(file: PageFile, m: Record<string, string>, altered: ReadonlySet<string>): Html | "" {
  if (!file.signed_sha256) return "";
  if (altered.has(file.id))
    return html`<p class="altered" data-testid="altered-${file.id}" role="alert"><strong>${m.fileAltered!}</strong> <a href="${file.url}">${m.openAlteredFile!}</a></p>`;
  return html`<p><a class="open-file" href="${file.url}" data-testid="open-${file.id}">${m.openFile!}</a></p>`;
}

/** The files whose stored copy the latest re-hash found changed since sealing (their `file_hash` check fails). */
function alteredFiles(proofs: (PageProof | null)[]): ReadonlySet<string> {
  return new Set(
    proofs.flatMap(
      (proof) =>
        proof?.verification.checks.flatMap((check) => (check.name.startsWith("file_hash:") && check.result === "fail" ? [check.name.slice(10)] : [])) ?? [],
    ),
  );
}

/**
 * Files as tiles: what each is and how heavy, the full signed file only when the reader opens it (a phone
 * must not download several MB per photo to read the page), and what was observed and reported beside it.
 */
function fileList(
  files: PageFile[],
  m: Record<string, string>,
  lang: PageLanguage,
  eager: ReadonlySet<string>,
  numbering: Numbering,
  altered: ReadonlySet<string>,
): Html {
  return html`<ul class="files">${files.map(
    (
      file,
    ) => html`<li class="tile" data-file="${file.id}">${preview(file, m, eager, altered.has(file.id))}<p class="tile-head"><span>${[fileName(file, m, numbering), formatName(file.content_type), ...decodedFacts(file), readableSize(file.size, lang)].join(" · ")}</span></p>
${openLink(file, m, altered)}${fileFacts(file, m, lang)}</li>`,
  )}</ul>`;
}

/** A link to the other proof of a pair, named by its side and the day it was certified (its id is a technical detail). */
const proofLink = (proof: PageProof, heading: string, lang: PageLanguage) => {
  const day = proof.timestamp ? new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(proof.timestamp.gen_time)) : null;
  return html`<a href="/p/${proof.id}?lang=${lang}">${heading}${day ? html` · ${day}` : ""}</a>`;
};

/** One proof: its files step by step. */
function singleProof(
  proof: PageProof,
  steps: PageStep[],
  m: Record<string, string>,
  lang: PageLanguage,
  eager: ReadonlySet<string>,
  numbering: Numbering,
  altered: ReadonlySet<string>,
): Html {
  return html`<h2>${m.files!}</h2>${steps.map(
    (step) =>
      html`<section class="step" data-testid="step-${step.id}"><h3>${step.label}</h3>${fileList(
        proof.files.filter((file) => file.step_id === step.id),
        m,
        lang,
        eager,
        numbering,
        altered,
      )}</section>`,
  )}`;
}

/** A before/after pair: for each step, the before's files beside the after's, each side linking to its proof. */
function pairedProofs(
  before: PageProof,
  after: PageProof,
  steps: PageStep[],
  m: Record<string, string>,
  lang: PageLanguage,
  eager: ReadonlySet<string>,
  numbering: Numbering,
  altered: ReadonlySet<string>,
): Html {
  const side = (proof: PageProof, heading: string, name: string, step: PageStep) =>
    html`<div class="side" data-side="${name}"><h4>${proofLink(proof, heading, lang)}</h4>${fileList(
      proof.files.filter((file) => file.step_id === step.id),
      m,
      lang,
      eager,
      numbering,
      altered,
    )}</div>`;
  return html`<h2>${m.before!} / ${m.after!}</h2>${steps.map(
    (step) =>
      html`<section class="step" data-testid="step-${step.id}"><h3>${step.label}</h3><div class="pair">${side(before, m.before!, "before", step)}${side(after, m.after!, "after", step)}</div></section>`,
  )}`;
}

/**
 * The verdict of the one verification core in one sentence (pending and failed: the proof's state). A test
 * proof says so in the verdict itself, whatever the verdict: it proves nothing in law.
 */
function verdictOf(proof: PageProof, m: Record<string, string>): string {
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
function checkList(proof: PageProof, m: Record<string, string>, numbering: Numbering): Html {
  return html`<ul class="checks" data-testid="checks">${proof.verification.checks.map((check) => {
    const [base, fileId] = check.name.split(":") as [string, string | undefined];
    const file = fileId === undefined ? undefined : proof.files.find((candidate) => candidate.id === fileId);
    const which = file ? ` (${fileName(file, m, numbering)})` : "";
    return html`<li class="${check.result}" data-code="${check.name}">${m[`check_${base}`] ?? check.name}${which} <strong>${m[RESULT_WORDS[check.result]]!}</strong></li>`;
  })}</ul>`;
}

/** One identifier with its copy button (check.js); `breakAfter`: where a long value may wrap (copied without it). */
const copyable = (id: string, label: string, value: string, m: Record<string, string>, breakAfter?: string) =>
  html`<dt id="${id}-label">${label}</dt><dd><code id="${id}">${breakAfter ? value.split(breakAfter).map((part, i) => (i === 0 ? part : html`${breakAfter}<wbr>${part}`)) : value}</code> <button type="button" class="copy" data-copy="${id}" aria-describedby="${id}-label">${m.copy!}</button></dd>`;

/** Identifiers and hashes for the people who check by hand; closed on screen, printed in full (style.css). */
function technicalDetails(proof: PageProof, m: Record<string, string>, numbering: ReturnType<typeof numberedFiles>): Html {
  const files = [...numbering.values()].map(
    ({ file, step }, i) =>
      html`<h4>${fileName(file, m, numbering)} · ${step.label}</h4><dl>${copyable(`file-${i}`, m.fileId!, file.id, m)}${copyable(`file-${i}-original`, m.original!, file.sha256, m)}${file.signed_sha256 ? copyable(`file-${i}-signed`, m.signed!, file.signed_sha256, m) : ""}</dl>`,
  );
  const checks = proof.verification.checks.map(
    (check) => html`<li><code>${check.name}</code>: <code>${check.result}</code> <span lang="en">${check.detail}</span></li>`,
  );
  return html`<details class="technical" data-testid="technical"><summary>${m.technical!}</summary>
<dl>${copyable("proof-id", m.proofId!, proof.id, m)}${proof.manifest_sha256 ? copyable("manifest-sha256", m.manifest!, proof.manifest_sha256, m) : ""}</dl>
${rootFingerprints(proof, m)}<h3>${m.fingerprints!}</h3>${files}${checks.length > 0 ? html`<h3>${m.checks!}</h3><ul>${checks}</ul>` : ""}</details>`;
}

/**
 * The roots the proof's timestamp and C2PA signatures chain to, as `openssl x509 -fingerprint -sha256`
 * prints them: the same source as the public JSON and VERIFY.md (the package's chains). They prove
 * something only once compared with a source independent of this page, which the text says.
 */
function rootFingerprints(proof: PageProof, m: Record<string, string>): Html | "" {
  const roots = proof.trust_anchors;
  if (!roots || (!roots.timestamp_authority_root_sha256 && !roots.c2pa_root_sha256)) return "";
  const published = new URL("/v1/public/trust-anchors", proof.package_url).href;
  return html`<h3>${m.rootFingerprints!}</h3><p>${m.rootsHelp!}</p><p><a class="published-roots" href="${published}">${m.publishedRoots!}</a></p>
<dl class="roots" data-testid="root-fingerprints">${roots.timestamp_authority_root_sha256 ? copyable("root-tsa", m.rootTsa!, opensslFingerprint(roots.timestamp_authority_root_sha256), m, ":") : ""}${roots.c2pa_root_sha256 ? copyable("root-c2pa", m.rootC2pa!, opensslFingerprint(roots.c2pa_root_sha256), m, ":") : ""}</dl>`;
}

/**
 * The "check it yourself" commands, run in the unzipped package: each root taken from the list the service
 * publishes (GET /v1/public/trust-anchors) by the fingerprint the page shows, never from the package (whose
 * chain.pem and c2pa-trust-anchor.pem prove nothing by themselves); then the seal over the whole proof and
 * the timestamp, with the commands VERIFY.md gives.
 */
function checkCommands(proof: PageProof): string {
  const roots = proof.trust_anchors;
  if (!proof.manifest_sha256 || !roots?.timestamp_authority_root_sha256 || !roots.c2pa_root_sha256) return "";
  const published = new URL("/v1/public/trust-anchors", proof.package_url).href;
  const save = (sha256: string, file: string) =>
    `curl -s ${published} | python3 -c 'import json, sys; print(next(a["pem"] for a in json.load(sys.stdin)["data"] if a["sha256"] == "${sha256}"), end="")' > ${file}`;
  // A proof sealed before manifest.p7s existed has no seal to check: only its timestamp.
  const seal = proof.seal
    ? [
        save(roots.c2pa_root_sha256, "service-root.pem"),
        "openssl cms -verify -binary -inform DER -in manifest.p7s -content manifest.json -CAfile service-root.pem -purpose any -out /dev/null",
      ]
    : [];
  return [
    ...seal,
    save(roots.timestamp_authority_root_sha256, "tsa-root.pem"),
    "openssl ts -verify -data manifest.json -in proof.tsr -CAfile tsa-root.pem -untrusted chain.pem",
  ].join("\n");
}

/** The human verification page, server-rendered; no inline script or style (strict CSP). */
export function renderVerificationPage(
  proof: PageProof,
  partner: PageProof | null,
  steps: PageStep[],
  lang: PageLanguage,
  organizationName: string | null,
): string {
  const m = PAGE_MESSAGES[lang];
  const command = checkCommands(proof);
  const hashes = proof.files
    .flatMap((file) => [file.sha256, file.signed_sha256])
    .filter(Boolean)
    .join(" ");
  const eager = eagerThumbnails([...proof.files, ...(partner?.files ?? [])]);
  const numbering = numberedFiles(proof, steps);
  const altered = alteredFiles([proof, partner]);
  const files =
    partner === null
      ? singleProof(proof, steps, m, lang, eager, numbering, altered)
      : proof.compare_to
        ? pairedProofs(partner, proof, steps, m, lang, eager, numbering, altered)
        : pairedProofs(proof, partner, steps, m, lang, eager, numbering, altered);
  // Our simulated authority is named in the reader's language; a real one keeps its own name.
  const authority = proof.timestamp ? (proof.mode === "test" ? m.testAuthority! : proof.timestamp.authority) : "";
  return html`<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${m.title!} ${proof.id}</title><link rel="stylesheet" href="/verify/style.css"><script type="module" src="/verify/check.js"></script><script type="module" src="/verify/local-time.js"></script></head>
<body data-copied="${m.copied!}" data-belongs="${m.belongs!}" data-not-belongs="${m.notBelongs!}">
${proof.verification.test_mode ? html`<p class="test-banner" data-testid="test-banner" role="note">${m.testBanner!}</p>` : ""}
<main>
<nav aria-label="${m.language!}">${PAGE_LANGUAGES.map((code, i) => html`${i > 0 ? " " : ""}<a href="?lang=${code}"${code === lang ? html` aria-current="page"` : ""}>${code.toUpperCase()}</a>`)}</nav>
<h1>${m.title!}</h1>
<p class="verdict ${proof.verification.status}" data-testid="verdict" data-verdict="${proof.verification.verdict}">${verdictOf(proof, m)}</p>
<section class="print-only record" data-testid="record">${qrSvg(proof.verification_url, m.scanToOpen!)}<p>${m.scanToOpen!}<br>${m.pageAddress!}<br><code>${proof.verification_url}</code></p></section>
<dl class="facts">
${organizationName ? html`<dt>${m.organization!}</dt><dd data-testid="organization">${organizationName}</dd>` : ""}
<dt>${m.reference!}</dt><dd data-testid="reference">${proof.external_reference}</dd>
<dt>${m.party!}</dt><dd>${m[proof.party] ?? proof.party}</dd>
${proof.stage ? html`<dt>${m.stage!}</dt><dd>${proof.stage}</dd>` : ""}
${partner ? html`<dt>${m.comparedWith!}</dt><dd data-testid="compared-with">${proofLink(partner, proof.compare_to ? m.before! : m.after!, lang)}</dd>` : ""}
${proof.verification.files_checked_at ? html`<dt>${m.filesCheckedAt!}</dt><dd data-testid="files-checked-at">${timeOf(proof.verification.files_checked_at, lang, true)}</dd>` : ""}
${proof.timestamp ? html`<dt>${m.sealedAt!}</dt><dd data-testid="certified-time">${timeOf(proof.timestamp.gen_time, lang, true)}</dd><dt>${m.authority!}</dt><dd data-testid="authority">${authority}, ${proof.timestamp.qualified ? m.qualified! : m.notQualified!}</dd>` : ""}
</dl>
${signalSummary(proof, m)}
<p class="screen-only"><button type="button" data-print>${m.print!}</button></p>
${claimLists(proof.claims, lang, m)}
${proof.verification.checks.length > 0 ? html`<h2>${m.checks!}</h2>${checkList(proof, m, numbering)}` : ""}
${files}
${
  proof.status === "sealed"
    ? html`<p class="screen-only"><a class="button" href="${proof.package_url}" download data-testid="download">${m.download!}</a></p>
<h2 id="command-title">${m.command!}</h2><p>${m.commandHelp!}</p><pre tabindex="0" aria-labelledby="command-title"><code id="command">${command}</code></pre><button type="button" data-copy="command" class="screen-only">${m.copy!}</button>`
    : ""
}
${technicalDetails(proof, m, numbering)}
<section class="screen-only"><h2 id="check-title">${m.checkTitle!}</h2><p id="check-help">${m.checkHelp!}</p>
<input type="file" id="check-file" data-hashes="${hashes}" aria-labelledby="check-title" aria-describedby="check-help check-result"><p id="check-result" role="status" aria-live="polite" data-testid="check-result"></p></section>
</main></body></html>`.toString();
}

/** The page for an identifier that names no proof, in the reader's language (the JSON twin answers `proof_not_found`). */
export function renderProofNotFoundPage(lang: PageLanguage): string {
  const m = PAGE_MESSAGES[lang];
  return html`<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${m.notFoundTitle!}</title><link rel="stylesheet" href="/verify/style.css"></head>
<body><main data-code="proof_not_found"><h1>${m.notFoundTitle!}</h1><p>${m.notFoundBody!}</p></main></body></html>`.toString();
}
