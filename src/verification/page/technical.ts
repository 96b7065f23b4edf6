import { html, type Html } from "../../lib/html.ts";
import { opensslFingerprint } from "../../../shared/trust-anchors.ts";
import { fileName, type Messages, type NumberedFile, type PageProof } from "./page-proof.ts";

/** One identifier with its copy button (check.js); `breakAfter`: where a long value may wrap (copied without it). */
const copyable = (id: string, label: string, value: string, m: Messages, breakAfter?: string) =>
  html`<dt id="${id}-label">${label}</dt><dd><code id="${id}" dir="ltr">${breakAfter ? value.split(breakAfter).map((part, i) => (i === 0 ? part : html`${breakAfter}<wbr>${part}`)) : value}</code> <button type="button" class="copy" data-copy="${id}" aria-describedby="${id}-label">${m.copy!}</button></dd>`;

/**
 * The roots the proof's timestamp and C2PA signatures chain to, as `openssl x509 -fingerprint -sha256`
 * prints them: the same source as the public JSON and VERIFY.md (the package's chains). They prove
 * something only once compared with a source independent of this page, which the text says.
 */
function rootFingerprints(proof: PageProof, m: Messages): Html | "" {
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

/**
 * Identifiers, hashes and the commands, for the people who check by hand, after everything a reader needs:
 * closed on screen, printed in full as the record's annex (style.css).
 */
export function technicalDetails(proof: PageProof, m: Messages, own: NumberedFile[], numbering: ReadonlyMap<string, NumberedFile>): Html {
  const files = own.map(
    ({ file, step }, i) =>
      html`<h4>${fileName(file, m, numbering)} · ${step.label}</h4><dl>${copyable(`file-${i}`, m.fileId!, file.id, m)}${copyable(`file-${i}-original`, m.original!, file.sha256, m)}${file.signed_sha256 ? copyable(`file-${i}-signed`, m.signed!, file.signed_sha256, m) : ""}</dl>`,
  );
  const checks = proof.verification.checks.map(
    (check) => html`<li dir="ltr"><code>${check.name}</code>: <code>${check.result}</code> <span lang="en">${check.detail}</span></li>`,
  );
  const command = proof.status === "sealed" ? checkCommands(proof) : "";
  return html`<details class="technical" data-testid="technical"><summary>${m.technical!}</summary>
<dl>${copyable("proof-id", m.proofId!, proof.id, m)}${proof.manifest_sha256 ? copyable("manifest-sha256", m.manifest!, proof.manifest_sha256, m) : ""}</dl>
${rootFingerprints(proof, m)}${
  command
    ? html`<h3 id="command-title">${m.command!}</h3><p>${m.commandHelp!}</p><pre tabindex="0" aria-labelledby="command-title" dir="ltr"><code id="command">${command}</code></pre><button type="button" data-copy="command" class="copy screen-only">${m.copy!}</button>`
    : ""
}<h3>${m.fingerprints!}</h3>${files}${checks.length > 0 ? html`<h3>${m.checks!}</h3><ul>${checks}</ul>` : ""}</details>`;
}
