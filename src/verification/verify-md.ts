import type { FileRow, ProofRow } from "../storage/rows.ts";
import { reportedByDevice, publicSignals } from "../proofs/file-facts.ts";
import { CLAIM_TEXTS, proofClaims, type ClaimCode, type ProofClaims } from "./claims.ts";

const HEADINGS = {
  en: { proven: "What this proof proves", reported_by_device: "What only the device reported", not_proven: "What this proof does not prove", signals: "Signals to weigh, per file", earlier: "earlier Content Credentials" },
  fr: { proven: "Ce que cette preuve prouve", reported_by_device: "Ce que seul l'appareil a déclaré", not_proven: "Ce que cette preuve ne prouve pas", signals: "Signaux à peser, par fichier", earlier: "Content Credentials antérieurs" },
} as const;

/** The claims and each file's signals, in one language: the same codes as the public JSON and the page. */
function claimsSection(claims: ProofClaims, files: FileRow[], lang: "en" | "fr"): string {
  const h = HEADINGS[lang];
  const list = (codes: ClaimCode[]) => (codes.length === 0 ? "- —" : codes.map((code) => `- \`${code}\`: ${CLAIM_TEXTS[code][lang]}`).join("\n"));
  const perFile = files
    .map((file) => {
      const codes = publicSignals(file).map((signal) => `\`${signal.code}\``);
      const prior = file.priorCredentials;
      const earlier = prior ? ` ${h.earlier}: ${prior.claim_generator ?? "?"} (${prior.digital_source_types.join(", ") || "—"}, ${prior.validation_state})` : "";
      return codes.length === 0 && !prior ? null : `- \`${file.id}\`: ${codes.join(", ") || "—"}${earlier}`;
    })
    .filter((line) => line !== null);
  return `### ${h.proven}\n\n${list(claims.proven)}\n\n### ${h.reported_by_device}\n\n${list(claims.reported_by_device)}\n\n### ${h.not_proven}\n\n${list(claims.not_proven)}\n${
    perFile.length === 0 ? "" : `\n### ${h.signals}\n\n${perFile.join("\n")}\n`
  }`;
}

/** The offline instructions put in every package, in English and French. */
export function verifyMarkdown(proof: ProofRow, files: FileRow[]): string {
  const claims = proofClaims(proof, files.map((file) => ({ reported_by_device: reportedByDevice(file) })));
  const epoch = proof.timestampGenTime ? Math.floor(Date.parse(proof.timestampGenTime) / 1000) : 0;
  const testNote =
    proof.mode === "test"
      ? "\n> **Test proof.** The timestamp comes from a simulated authority and the files are signed by a test certificate: it proves nothing and has no legal value.\n> **Preuve de test.** L'horodatage vient d'une autorité simulée et les fichiers sont signés par un certificat de test : elle ne prouve rien et n'a aucune valeur légale.\n"
      : "";
  return `# Verify proof ${proof.id} / Vérifier la preuve ${proof.id}
${testNote}
manifest_sha256: \`${proof.manifestSha256}\`
gen_time: \`${proof.timestampGenTime}\` (qualified: ${proof.timestampQualified ? "yes" : "no"})

## English

Everything below works offline, with standard tools, without this service.

1. **The manifest is the one that was timestamped.**
   \`sha256sum manifest.json\` must print \`${proof.manifestSha256}\`.
2. **The timestamp authority certified that manifest at \`gen_time\`.**
   \`openssl ts -verify -digest ${proof.manifestSha256} -in proof.tsr -CAfile chain.pem\` must print \`Verification: OK\`.
   openssl checks certificates at today's date: once the authority's certificate has expired, add
   \`-attime ${epoch}\` (the \`gen_time\` in seconds since 1970) to check them at the time of the proof.
3. **The files are the ones listed in the manifest.** For each file in \`files/\`,
   \`sha256sum files/<id>.<ext>\` must equal its \`signed_sha256\` in \`manifest.json\`.
4. **Each file carries its own C2PA signature.** Read it with any C2PA reader, e.g.
   \`c2patool files/<id>.<ext>\` (c2pa-rs); add \`--trust_anchors c2pa-trust-anchor.pem\` to trust our signing root.
   A WebM video is the exception: C2PA cannot be embedded in WebM, so it is kept as received
   (\`signed_sha256\` equals \`sha256\`) and is proven by its hash in the timestamped manifest alone.
   The capture assertion \`com.proofseal.capture\` names the proof and the step, and keeps what the service
   observed (\`observed\`) apart from what the device reported (\`reported_by_device\`). A file chosen from the
   device, or one that came with earlier Content Credentials, is recorded as opened (\`c2pa.opened\`) with the
   original as its parent ingredient, never as a camera capture.

${claimsSection(claims, files, "en")}
## Français

Tout ce qui suit fonctionne hors ligne, avec des outils standard, sans ce service.

1. **Le manifeste est bien celui qui a été horodaté.**
   \`sha256sum manifest.json\` doit afficher \`${proof.manifestSha256}\`.
2. **L'autorité d'horodatage a certifié ce manifeste à \`gen_time\`.**
   \`openssl ts -verify -digest ${proof.manifestSha256} -in proof.tsr -CAfile chain.pem\` doit afficher \`Verification: OK\`.
   openssl vérifie les certificats à la date du jour : une fois le certificat de l'autorité expiré, ajoutez
   \`-attime ${epoch}\` (le \`gen_time\` en secondes depuis 1970) pour les vérifier à la date de la preuve.
3. **Les fichiers sont ceux du manifeste.** Pour chaque fichier de \`files/\`,
   \`sha256sum files/<id>.<ext>\` doit être égal à son \`signed_sha256\` dans \`manifest.json\`.
4. **Chaque fichier porte sa propre signature C2PA.** Lisez-la avec un lecteur C2PA, par exemple
   \`c2patool files/<id>.<ext>\` (c2pa-rs) ; ajoutez \`--trust_anchors c2pa-trust-anchor.pem\` pour faire confiance à notre racine de signature.
   Exception : une vidéo WebM, dans laquelle C2PA ne peut pas être intégré, est gardée telle que reçue
   (\`signed_sha256\` égale \`sha256\`) et n'est prouvée que par son empreinte dans le manifeste horodaté.
   L'assertion de capture \`com.proofseal.capture\` nomme la preuve et l'étape, et sépare ce que le service a
   constaté (\`observed\`) de ce que l'appareil a déclaré (\`reported_by_device\`). Un fichier choisi sur
   l'appareil, ou déjà porteur de Content Credentials, est inscrit comme ouvert (\`c2pa.opened\`) avec l'original
   pour ingrédient parent, jamais comme une prise de vue.

${claimsSection(claims, files, "fr")}`;
}
