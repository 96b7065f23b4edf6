import type { FileRow, ProofRow } from "../storage/rows.ts";
import { reportedByDevice, publicSignals } from "../proofs/file-facts.ts";
import { CLAIM_TEXTS, proofClaims, type ClaimCode, type ProofClaims } from "./claims.ts";
import { type PackagedReportName, type PackageRoots, verifySteps } from "./verify-steps.ts";
import type { RevocationIndexEntry } from "../../shared/revocation-data.ts";

const HEADINGS = {
  en: {
    proven: "What this proof proves",
    reported_by_device: "What only the device reported",
    not_proven: "What this proof does not prove",
    signals: "Signals to weigh, per file",
    earlier: "earlier Content Credentials",
  },
  fr: {
    proven: "Ce que cette preuve prouve",
    reported_by_device: "Ce que seul l'appareil a déclaré",
    not_proven: "Ce que cette preuve ne prouve pas",
    signals: "Signaux à peser, par fichier",
    earlier: "Content Credentials antérieurs",
  },
} as const;

/** The claims and each file's signals, in one language: the same codes as the public JSON and the page. */
function claimsSection(claims: ProofClaims, files: FileRow[], lang: "en" | "fr"): string {
  const h = HEADINGS[lang];
  const list = (codes: ClaimCode[]) => (codes.length === 0 ? "- —" : codes.map((code) => `- \`${code}\`: ${CLAIM_TEXTS[code][lang]}`).join("\n"));
  const perFile = files
    .map((file) => {
      const codes = publicSignals(file).map((signal) => `\`${signal.code}\``);
      const prior = file.priorCredentials;
      const earlier = prior
        ? ` ${h.earlier}: ${prior.claim_generator ?? "?"} (${prior.digital_source_types.join(", ") || "—"}, ${prior.validation_state})`
        : "";
      return codes.length === 0 && !prior ? null : `- \`${file.id}\`: ${codes.join(", ") || "—"}${earlier}`;
    })
    .filter((line) => line !== null);
  return `### ${h.proven}\n\n${list(claims.proven)}\n\n### ${h.reported_by_device}\n\n${list(claims.reported_by_device)}\n\n### ${h.not_proven}\n\n${list(claims.not_proven)}\n${
    perFile.length === 0 ? "" : `\n### ${h.signals}\n\n${perFile.join("\n")}\n`
  }`;
}

/**
 * The offline instructions put in every package, in English and French. `roots`: the fingerprints of the
 * package's authority and service roots, printed for comparison (the steps never trust them: step 1 takes the
 * roots from the list published at `baseUrl`); `revocation`: the index of the revocation data captured at
 * sealing (null: sealed before it was captured); `hasEvidenceRecord`: the package carries evidence-record.ers (step 8);
 * `reports`: the sealed PDF reports it carries (step 9).
 */
export function verifyMarkdown(
  proof: ProofRow,
  files: FileRow[],
  roots: PackageRoots = { tsa: null, c2pa: null },
  revocation: RevocationIndexEntry[] | null = null,
  hasEvidenceRecord = false,
  baseUrl = "{base_url}",
  reports: PackagedReportName[] = [],
): string {
  const claims = proofClaims(
    proof,
    files.map((file) => ({ reported_by_device: reportedByDevice(file) })),
  );
  const testNote =
    proof.mode === "test"
      ? "\n> **Test proof.** The timestamp comes from a simulated authority and the proof is sealed and its files signed by a test identity: it proves nothing and has no legal value.\n> **Preuve de test.** L'horodatage vient d'une autorité simulée, la preuve est scellée et ses fichiers signés par une identité de test : elle ne prouve rien et n'a aucune valeur légale.\n"
      : "";
  return `# Verify proof ${proof.id} / Vérifier la preuve ${proof.id}
${testNote}
What the service states, for comparison; the steps below check each from the package and from roots obtained outside it, never from these lines. / Ce que déclare le service, pour comparaison ; les étapes ci-dessous vérifient chaque valeur à partir du paquet et de racines obtenues hors de lui, jamais à partir de ces lignes.

manifest_sha256: \`${proof.manifestSha256}\`
gen_time: \`${proof.timestampGenTime}\` (qualified: ${proof.timestampQualified ? "yes" : "no"})
tsa_root_sha256: \`${roots.tsa?.sha256 ?? "—"}\`
c2pa_root_sha256: \`${roots.c2pa?.sha256 ?? "—"}\`

## English

${verifySteps(proof, files, "en", revocation, hasEvidenceRecord, baseUrl, reports)}

${claimsSection(claims, files, "en")}
## Français

${verifySteps(proof, files, "fr", revocation, hasEvidenceRecord, baseUrl, reports)}

${claimsSection(claims, files, "fr")}`;
}
