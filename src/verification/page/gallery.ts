import { carriesFigures } from "../../../shared/integrity-signals.ts";
import { html, type Html } from "../../lib/html.ts";
import type { PageLanguage } from "./messages.ts";
import type { PageStep } from "./step-labels.ts";
import { certifiedTimeUtc, readableSize } from "./certified-time.ts";
import { icon } from "./icons.ts";
import { fileName, type Messages, type NumberedFile, type Numbering, type PageFile, type PageProof } from "./page-proof.ts";

/** What the gallery needs besides the files: the reader's language and the page-wide sets. */
export interface GalleryContext {
  m: Messages;
  lang: PageLanguage;
  eager: ReadonlySet<string>;
  numbering: Numbering;
  altered: ReadonlySet<string>;
}

/** A time in the page language, in UTC and saying so; with `local`, local-time.js adds the reader's own time beside it. */
export const timeOf = (iso: string, lang: PageLanguage, local = false) =>
  html`<time datetime="${iso}"${local ? html` data-local` : ""}>${certifiedTimeUtc(iso, lang)}</time>`;

/** A short time in UTC ("10:02:13 UTC"), with its day when it is not `day`'s (a pair's column is headed by its day). */
function shortTime(iso: string, lang: PageLanguage, day: string | null): Html {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  const sameDay = day !== null && iso.slice(0, 10) === day.slice(0, 10);
  const format = new Intl.DateTimeFormat(lang, { ...(sameDay ? {} : { dateStyle: "medium" }), timeStyle: "long", timeZone: "UTC" });
  return html`<time datetime="${iso}">${format.format(date)}</time>`;
}

/** A proof's certified day and time, for the head of its column in a pair ("Nov 26, 2026, 10:02:13 UTC"). */
export function certifiedShort(proof: PageProof, lang: PageLanguage): string | null {
  if (!proof.timestamp) return null;
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "long", timeZone: "UTC" }).format(new Date(proof.timestamp.gen_time));
}

/** A signal as a sentence in the reader's language, with the sealer's figures beside it as it wrote them (in English). */
function signalItem(signal: { code: string; detail: string }, m: Messages): Html {
  const sentence = m[`signal_${signal.code}`] ?? signal.detail;
  const figures = carriesFigures(signal.code) ? html` <span class="signal-detail" lang="en" dir="ltr">(${signal.detail})</span>` : "";
  return html`<li data-code="${signal.code}">${sentence}${figures}</li>`;
}

/** What the service observed and what the device only reported: never mixed (docs/adr/0018). */
function fileFacts(file: PageFile, m: Messages, lang: PageLanguage): Html {
  const reported = file.reported_by_device;
  const place = reported.geolocation
    ? `${reported.geolocation.latitude}, ${reported.geolocation.longitude} (${m.accuracy} ${reported.geolocation.accuracy_m} m)`
    : "—";
  const earlier = file.earlier_content_credentials;
  // Closed on screen so that ten photos stay a gallery; printed open (style.css).
  return html`<details class="file-facts"><summary>${m.captureFacts!}</summary><dl class="observed" data-testid="observed-${file.id}"><dt>${m.observed!} · ${m.receivedAt!}</dt><dd>${timeOf(file.observed.received_at, lang)}</dd></dl>
<dl class="reported" data-testid="reported-${file.id}"><dt>${m.reportedByDevice!} · ${m.method!}</dt><dd>${m[reported.method] ?? reported.method}</dd><dt>${m.deviceTime!}</dt><dd>${reported.device_time ? timeOf(reported.device_time, lang) : "—"}</dd><dt>${m.location!}</dt><dd>${place}</dd></dl>
${earlier ? html`<p class="earlier" data-testid="earlier-${file.id}">${m.earlierCredentials!}: ${earlier.claim_generator ?? "?"} (${earlier.digital_source_types.join(", ") || "—"})</p>` : ""}</details>`;
}

/** The file's signals, in sight beside its picture. */
const signalList = (file: PageFile, m: Messages): Html | "" =>
  file.signals.length > 0
    ? html`<ul class="signals" data-testid="signals-${file.id}" aria-label="${m.signals!}">${file.signals.map((signal) => signalItem(signal, m))}</ul>`
    : "";

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
export const eagerThumbnails = (files: PageFile[]): ReadonlySet<string> =>
  new Set(
    files
      .filter((file) => file.thumbnail_url)
      .slice(0, EAGER_THUMBNAILS)
      .map((file) => file.id),
  );

/** The short name of a file's format (HEIC, MP4…), from its content type. */
const formatName = (contentType: string) => (contentType.split("/")[1] ?? contentType).replace(/^quicktime$/, "mov").toUpperCase();

/**
 * The file's picture: the thumbnail the sealer made from the signed bytes (a tap on it opens the full file;
 * the text link below is the accessible way there), or, when there is none (a video, a HEIC photo libvips
 * cannot decode), a tile that says what the file is instead of a picture.
 */
function preview(file: PageFile, m: Messages, eager: ReadonlySet<string>, altered: boolean): Html {
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
 * The link to a file's stored copy: the signed file while the latest re-hash found it as sealed; once found
 * altered, a warning that it no longer matches, and a link that says what it opens.
 */
function openLink(file: PageFile, m: Messages, altered: ReadonlySet<string>): Html | "" {
  if (!file.signed_sha256) return "";
  if (altered.has(file.id))
    return html`<p class="altered" data-testid="altered-${file.id}" role="alert"><strong>${m.fileAltered!}</strong> <a href="${file.url}">${m.openAlteredFile!}</a></p>`;
  return html`<p><a class="open-file" href="${file.url}" data-testid="open-${file.id}">${m.openFile!}</a></p>`;
}

/** The files whose stored copy the latest re-hash found changed since sealing (their `file_hash` check fails). */
export function alteredFiles(proofs: (PageProof | null)[]): ReadonlySet<string> {
  return new Set(
    proofs.flatMap(
      (proof) =>
        proof?.verification.checks.flatMap((check) => (check.name.startsWith("file_hash:") && check.result === "fail" ? [check.name.slice(10)] : [])) ?? [],
    ),
  );
}

/**
 * How the file came to the service, as the device reported it, in words and a pictogram: a file chosen from
 * the gallery must never pass for a camera shot.
 */
function origin(file: PageFile, m: Messages): Html {
  const method = file.reported_by_device.method;
  if (method === "file") return html`<p class="origin origin-file" data-testid="origin-${file.id}">${icon("gallery")}<span>${m.origin_file!}</span></p>`;
  if (method === "camera") return html`<p class="origin origin-camera" data-testid="origin-${file.id}">${icon("camera")}<span>${m.origin_camera!}</span></p>`;
  return html`<p class="origin" data-testid="origin-${file.id}"><span>${m.origin_unknown!}</span></p>`;
}

/**
 * A file as a tile: its picture, its number and what it is, when the service received it, how it came (as
 * reported), its signals, the full signed file only when the reader opens it (a phone must not download several
 * MB per photo to read the page), and what was observed and reported beside it.
 */
function tile(numbered: NumberedFile, context: GalleryContext, day: string | null): Html {
  const { file } = numbered;
  const { m, lang, eager, numbering, altered } = context;
  const meta = [formatName(file.content_type), ...decodedFacts(file), readableSize(file.size, lang)].join(" · ");
  const side = numbered.side === "single" ? "" : html`<span class="visually-hidden">${m[numbered.side]} · </span>`;
  return html`<li class="tile" data-file="${file.id}">${preview(file, m, eager, altered.has(file.id))}<p class="tile-head">${side}<strong class="tile-name">${fileName(file, m, numbering)}</strong> <span class="tile-meta" dir="ltr">${meta}</span></p>
<p class="tile-time">${m.receivedAt!} ${shortTime(file.observed.received_at, lang, day)}</p>${origin(file, m)}
${signalList(file, m)}${openLink(file, m, altered)}${fileFacts(file, m, lang)}</li>`;
}

const filesOf = (numbering: Numbering, proofId: string, step: PageStep) =>
  [...numbering.values()].filter((numbered) => numbered.step.id === step.id && numbered.proofId === proofId);

/** One proof: its files step by step, each numbered. */
export function singleGallery(proof: PageProof, steps: PageStep[], context: GalleryContext): Html {
  const day = proof.timestamp?.gen_time ?? null;
  return html`<section class="gallery" aria-labelledby="files-title"><h2 id="files-title" class="visually-hidden">${context.m.files!}</h2>${steps.map(
    (step) =>
      html`<section class="step" data-testid="step-${step.id}"><h3>${step.label}</h3><ul class="files">${filesOf(context.numbering, proof.id, step).map((numbered) => tile(numbered, context, day))}</ul></section>`,
  )}</section>`;
}

/** A link to one side of a pair, named by its side and its certified day and time (its id is a technical detail). */
export function sideLink(proof: PageProof, heading: string, lang: PageLanguage): Html {
  const when = certifiedShort(proof, lang);
  return html`<a href="/p/${proof.id}?lang=${lang}">${heading}${when ? html`<span class="visually-hidden"> · </span><span class="side-time">${when}</span>` : ""}</a>`;
}

/**
 * A before/after pair, aligned as the PDF report aligns it: each column headed by its side with its own certified
 * day and time (a same-day pair is told apart), then for each step one row per position, the before's file beside
 * the after's, so that the tops of a row's tiles stay level whatever each tile holds.
 */
export function pairGallery(before: PageProof, after: PageProof, steps: PageStep[], context: GalleryContext): Html {
  const { m, lang } = context;
  const cell = (numbered: NumberedFile | undefined, side: "before" | "after", day: string | null) =>
    numbered ? html`<ul class="files" data-side="${side}">${tile(numbered, context, day)}</ul>` : html`<div class="empty-cell" data-side="${side}"></div>`;
  const rows = steps.map((step) => {
    const left = filesOf(context.numbering, before.id, step);
    const right = filesOf(context.numbering, after.id, step);
    const count = Math.max(left.length, right.length);
    const cells = Array.from({ length: count }, (_, i) => [
      cell(left[i], "before", before.timestamp?.gen_time ?? null),
      cell(right[i], "after", after.timestamp?.gen_time ?? null),
    ]);
    return html`<section class="step" data-testid="step-${step.id}"><h3>${step.label}</h3><div class="pair" data-testid="pair-${step.id}">${cells}</div></section>`;
  });
  return html`<section class="gallery" aria-labelledby="files-title"><h2 id="files-title" class="visually-hidden">${m.before!} / ${m.after!}</h2>
<div class="pair pair-head"><p class="side-head" data-side="before" data-testid="side-before">${sideLink(before, m.before!, lang)}</p><p class="side-head" data-side="after" data-testid="side-after">${sideLink(after, m.after!, lang)}</p></div>${rows}</section>`;
}
