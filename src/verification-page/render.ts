import { escapeHtml as e } from "../lib/html.ts";
import type { Verification } from "../verification/verify-proof.ts";
import { PAGE_LANGUAGES, PAGE_MESSAGES, type PageLanguage } from "./messages.ts";
import type { PageStep } from "./step-labels.ts";
import { CLAIM_TEXTS, type ClaimCode } from "../verification/claims.ts";

interface PageFile {
  id: string;
  step_id: string;
  kind: string;
  content_type: string;
  sha256: string;
  signed_sha256: string | null;
  url: string;
  observed: { received_at: string };
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
  package_url: string;
  verification: Verification;
  claims: Record<"proven" | "reported_by_device" | "not_proven", { code: ClaimCode }[]>;
}

/** What the service observed, what the device only reported, and the signals: never mixed (docs/adr/0018). */
function fileFacts(file: PageFile, m: Record<string, string>): string {
  const reported = file.reported_by_device;
  const place = reported.geolocation ? `${reported.geolocation.latitude}, ${reported.geolocation.longitude} (${m.accuracy} ${reported.geolocation.accuracy_m} m)` : "—";
  const earlier = file.earlier_content_credentials;
  return `<dl class="observed" data-testid="observed-${e(file.id)}"><dt>${e(m.observed!)} · ${e(m.receivedAt!)}</dt><dd><time datetime="${e(file.observed.received_at)}">${e(file.observed.received_at)}</time></dd></dl>
<dl class="reported" data-testid="reported-${e(file.id)}"><dt>${e(m.reportedByDevice!)} · ${e(m.method!)}</dt><dd>${e(m[reported.method] ?? reported.method)}</dd><dt>${e(m.deviceTime!)}</dt><dd>${e(reported.device_time ?? "—")}</dd><dt>${e(m.location!)}</dt><dd>${e(place)}</dd></dl>
${earlier ? `<p class="earlier" data-testid="earlier-${e(file.id)}">${e(m.earlierCredentials!)}: ${e(earlier.claim_generator ?? "?")} (${e(earlier.digital_source_types.join(", ") || "—")})</p>` : ""}
${file.signals.length > 0 ? `<ul class="signals" data-testid="signals-${e(file.id)}" aria-label="${e(m.signals!)}">${file.signals.map((signal) => `<li data-code="${e(signal.code)}"><code>${e(signal.code)}</code> ${e(signal.detail)}</li>`).join("")}</ul>` : ""}`;
}

/** The three lists of claims in the reader's language, from the codes the public JSON carries. */
function claimLists(claims: PageProof["claims"], lang: PageLanguage, m: Record<string, string>): string {
  const list = (name: keyof PageProof["claims"], heading: string) =>
    `<h3>${e(heading)}</h3><ul class="claims" data-testid="claims-${name}">${claims[name].map((claim) => `<li data-code="${e(claim.code)}">${e(CLAIM_TEXTS[claim.code][lang])}</li>`).join("")}</ul>`;
  return `${list("proven", m.claimsProven!)}${list("reported_by_device", m.claimsReported!)}${list("not_proven", m.claimsNotProven!)}`;
}

function fileList(files: PageFile[], m: Record<string, string>): string {
  return `<ul class="files">${files
    .map(
      (file) => `<li>${file.kind === "photo" && file.signed_sha256 ? `<img src="${e(file.url)}" alt="${e(file.id)}" loading="lazy">` : ""}
<code>${e(file.id)}</code><dl><dt>${e(m.original!)}</dt><dd><code>${e(file.sha256)}</code></dd><dt>${e(m.signed!)}</dt><dd><code>${e(file.signed_sha256 ?? "—")}</code></dd></dl>${fileFacts(file, m)}</li>`,
    )
    .join("")}</ul>`;
}

const proofLink = (proof: PageProof, heading: string, lang: PageLanguage) => `<a href="/p/${e(proof.id)}?lang=${lang}">${e(heading)} · <code>${e(proof.id)}</code></a>`;

/** One proof: its files step by step. */
function singleProof(proof: PageProof, steps: PageStep[], m: Record<string, string>): string {
  return `<h2>${e(m.files!)}</h2>${steps
    .map((step) => `<section class="step" data-testid="step-${e(step.id)}"><h3>${e(step.label)}</h3>${fileList(proof.files.filter((file) => file.step_id === step.id), m)}</section>`)
    .join("")}`;
}

/** A before/after pair: for each step, the before's files beside the after's, each side linking to its proof. */
function pairedProofs(before: PageProof, after: PageProof, steps: PageStep[], m: Record<string, string>, lang: PageLanguage): string {
  const side = (proof: PageProof, heading: string, name: string, step: PageStep) =>
    `<div class="side" data-side="${name}"><h4>${proofLink(proof, heading, lang)}</h4>${fileList(proof.files.filter((file) => file.step_id === step.id), m)}</div>`;
  return `<h2>${e(m.before!)} / ${e(m.after!)}</h2>${steps
    .map((step) => `<section class="step" data-testid="step-${e(step.id)}"><h3>${e(step.label)}</h3><div class="pair">${side(before, m.before!, "before", step)}${side(after, m.after!, "after", step)}</div></section>`)
    .join("")}`;
}

/** The human verification page, server-rendered; no inline script or style (strict CSP). */
export function renderVerificationPage(proof: PageProof, partner: PageProof | null, steps: PageStep[], lang: PageLanguage): string {
  const m = PAGE_MESSAGES[lang];
  const verdict = m[proof.verification.status] ?? proof.verification.status;
  const command = proof.manifest_sha256 ? `openssl ts -verify -digest ${proof.manifest_sha256} -in proof.tsr -CAfile chain.pem` : "";
  const hashes = proof.files.flatMap((file) => [file.sha256, file.signed_sha256]).filter(Boolean).join(" ");
  const files =
    partner === null ? singleProof(proof, steps, m) : proof.compare_to ? pairedProofs(partner, proof, steps, m, lang) : pairedProofs(proof, partner, steps, m, lang);
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${e(m.title!)} ${e(proof.id)}</title><link rel="stylesheet" href="/verify/style.css"><script type="module" src="/verify/check.js"></script></head>
<body data-copied="${e(m.copied!)}" data-belongs="${e(m.belongs!)}" data-not-belongs="${e(m.notBelongs!)}">
${proof.verification.test_mode ? `<p class="test-banner" data-testid="test-banner" role="note">${e(m.testBanner!)}</p>` : ""}
<main>
<nav aria-label="${e(m.language!)}">${PAGE_LANGUAGES.map((code) => `<a href="?lang=${code}"${code === lang ? ' aria-current="page"' : ""}>${code.toUpperCase()}</a>`).join(" ")}</nav>
<h1>${e(m.title!)}</h1>
<p class="verdict ${e(proof.verification.status)}" data-testid="verdict">${e(verdict)}</p>
<dl class="facts">
<dt>${e(m.reference!)}</dt><dd><code>${e(proof.external_reference)}</code></dd>
<dt>${e(m.party!)}</dt><dd>${e(m[proof.party] ?? proof.party)}</dd>
${proof.stage ? `<dt>${e(m.stage!)}</dt><dd>${e(proof.stage)}</dd>` : ""}
${partner ? `<dt>${e(m.comparedWith!)}</dt><dd data-testid="compared-with">${proofLink(partner, proof.compare_to ? m.before! : m.after!, lang)}</dd>` : ""}
${proof.timestamp ? `<dt>${e(m.sealedAt!)}</dt><dd><time datetime="${e(proof.timestamp.gen_time)}">${e(proof.timestamp.gen_time)}</time> (${e(proof.timestamp.qualified ? m.qualified! : m.notQualified!)})</dd><dt>${e(m.authority!)}</dt><dd>${e(proof.timestamp.authority)}</dd>` : ""}
</dl>
${claimLists(proof.claims, lang, m)}
${files}
${proof.status === "sealed" ? `<p><a class="button" href="${e(proof.package_url)}" download data-testid="download">${e(m.download!)}</a></p>
<h2 id="command-title">${e(m.command!)}</h2><pre tabindex="0" aria-labelledby="command-title"><code id="command">${e(command)}</code></pre><button type="button" data-copy="command">${e(m.copy!)}</button>` : ""}
<h2>${e(m.checks!)}</h2><ul class="checks">${proof.verification.checks.map((check) => `<li class="${check.result}">${e(check.name)}: ${check.result}</li>`).join("")}</ul>
<h2 id="check-title">${e(m.checkTitle!)}</h2><p id="check-help">${e(m.checkHelp!)}</p>
<input type="file" id="check-file" data-hashes="${e(hashes)}" aria-labelledby="check-title" aria-describedby="check-help check-result"><p id="check-result" role="status" aria-live="polite" data-testid="check-result"></p>
</main></body></html>`;
}

/** The page for an identifier that names no proof, in the reader's language (the JSON twin answers `proof_not_found`). */
export function renderProofNotFoundPage(lang: PageLanguage): string {
  const m = PAGE_MESSAGES[lang];
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${e(m.notFoundTitle!)}</title><link rel="stylesheet" href="/verify/style.css"></head>
<body><main data-code="proof_not_found"><h1>${e(m.notFoundTitle!)}</h1><p>${e(m.notFoundBody!)}</p></main></body></html>`;
}
