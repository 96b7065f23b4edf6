import type { Env } from "../env.ts";
import type { Database } from "../db/client.ts";
import { REPORT_LANGUAGES, type ReportFile, type ReportJob, type ReportLanguage, type ReportProof } from "../../shared/report-protocol.ts";
import { matchLocale } from "../i18n/resolve-locale.ts";
import { findSessionById } from "../storage/capture-sessions.ts";
import { findOrganization } from "../storage/organizations.ts";
import { findProofById, proofFiles } from "../storage/proofs-read.ts";
import { readSealedArtifacts } from "../storage/objects/sealed-artifacts.ts";
import type { ObjectStore } from "../storage/objects/bucket.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import { CLAIM_TEXTS, proofClaims } from "../verification/claims.ts";
import { PAGE_MESSAGES } from "../verification/page/messages.ts";
import { pageSteps } from "../verification/page/step-labels.ts";
import { publicProof } from "../verification/public-proof.ts";
import type { ReportKind } from "../storage/proof-reports.ts";

/** The proofs a report is about: one, or a pair's before then after; null while the report cannot be made yet. */
export interface ReportSubject {
  kind: ReportKind;
  /** The proof the report is kept with: the proof itself, or the pair's after. */
  holder: ProofRow;
  proofs: { row: ProofRow; files: FileRow[] }[];
}

const loadProof = async (db: Database, store: ObjectStore, id: string) => {
  const row = await findProofById(db, id);
  return row === null ? null : { row, files: (await proofFiles(db, store, [row])).get(row.id) ?? [] };
};

/**
 * What a report of `kind` asked through `proofId` is about. A proof's own once it is sealed; a pair's, asked
 * through either proof, once the after is sealed (the before always is). Null otherwise: not made yet.
 */
export async function reportSubject(db: Database, store: ObjectStore, proofId: string, kind: ReportKind): Promise<ReportSubject | null> {
  const asked = await loadProof(db, store, proofId);
  if (asked === null) return null;
  if (kind === "proof") return asked.row.status === "sealed" ? { kind, holder: asked.row, proofs: [asked] } : null;
  const afterId = asked.row.compareTo !== null ? asked.row.id : asked.row.comparedBy;
  if (afterId === null) return null;
  const after = afterId === asked.row.id ? asked : await loadProof(db, store, afterId);
  const before = after?.row.compareTo ? (after.row.compareTo === asked.row.id ? asked : await loadProof(db, store, after.row.compareTo)) : null;
  if (after === null || before === null || after.row.status !== "sealed" || before.row.status !== "sealed") return null;
  return { kind, holder: after.row, proofs: [before, after] };
}

/** The report's language: the capture's own (its base language when the report has no table for it), else English. */
export const reportLanguage = (locale: string | null | undefined): ReportLanguage =>
  ((locale ? matchLocale(locale, REPORT_LANGUAGES) : undefined) as ReportLanguage | undefined) ?? "en";

const base64 = (bytes: Uint8Array | undefined) => (bytes === undefined ? null : btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join("")));

/**
 * The job the sealer lays out: every fact as the public verification presents it (the public signals, never
 * the earlier proof they name), the steps labelled in the report's language, the claims, verdict and signal
 * sentences from the page's tables (one wording of each fact), the proof's manifest, seal and token to attach,
 * and a short-lived URL to each signed photo.
 */
export async function buildReportJob(
  env: Env,
  db: Database,
  subject: ReportSubject,
  pictureUrl: (key: string) => Promise<{ url: string; headers?: Record<string, string> }>,
  deadline: Date,
): Promise<ReportJob> {
  const session = await findSessionById(db, subject.holder.sessionId);
  const language = reportLanguage(session?.locale);
  const m = PAGE_MESSAGES[language];
  const organization = await findOrganization(db, subject.holder.organizationId);
  const stepIds = subject.proofs.flatMap((proof) => proof.files.map((file) => file.stepId));
  // An after inherits its before's template: one snapshot labels the steps of both.
  const steps = pageSteps(session?.templateSnapshot ?? null, language, [...new Set(stepIds)]);
  const base = env.API_BASE_URL.replace(/\/$/, "");
  const sides: ReportProof["side"][] = subject.kind === "pair" ? ["before", "after"] : ["single"];
  const proofs = await Promise.all(
    subject.proofs.map(async ({ row, files }, index): Promise<ReportProof> => {
      const [presented, artifacts] = await Promise.all([publicProof(env, row, files), readSealedArtifacts(env, { id: row.id, sealingRun: row.sealingRun })]);
      const claims = proofClaims(row, presented.files);
      const say = (codes: (keyof typeof CLAIM_TEXTS)[]) => codes.map((code) => CLAIM_TEXTS[code][language]);
      const { verification } = presented;
      const verdictKey = verification.verdict === "verified" && verification.test_mode ? "verdict_verified_test" : `verdict_${verification.verdict}`;
      const numbered = steps.flatMap((step) => presented.files.filter((file) => file.step_id === step.id).map((file) => ({ file, step })));
      const rows = new Map(files.map((file) => [file.id, file]));
      const reportFiles = await Promise.all(
        numbered.map(async ({ file, step }, position): Promise<ReportFile> => {
          const stored = rows.get(file.id)!;
          return {
            id: file.id,
            step_id: file.step_id,
            step_label: step.label,
            number: position + 1,
            position: numbered.filter((other) => other.step.id === step.id).findIndex((other) => other.file.id === file.id) + 1,
            kind: file.kind,
            content_type: file.content_type,
            size: file.size,
            sha256: file.sha256.toLowerCase(),
            signed_sha256: (file.signed_sha256 ?? "").toLowerCase(),
            received_at: file.captured_at,
            reported: {
              method: file.reported_by_device.method,
              device_time: file.reported_by_device.device_time,
              geolocation: file.reported_by_device.geolocation,
            },
            clock_offset_ms: file.observed.clock_offset_ms,
            signals: file.signals.map((signal) => ({ code: signal.code, sentence: m[`signal_${signal.code}`] ?? signal.detail, detail: signal.detail })),
            // Drawn from the signed copy, as the thumbnail is: a photo the sealer decoded at sealing (it made a thumbnail).
            picture: file.kind === "photo" && stored.thumbnail !== null && stored.signedKey !== null ? await pictureUrl(stored.signedKey) : null,
          };
        }),
      );
      const timestamp = presented.timestamp!;
      return {
        id: row.id,
        mode: row.mode,
        side: sides[index]!,
        external_reference: row.externalReference,
        party: row.party,
        stage: row.stage,
        category: row.category,
        location_reference: row.locationReference,
        verdict: { code: verification.verdict, status: verification.status, sentence: m[verdictKey] ?? verification.verdict },
        sealed_at: row.sealedAt!,
        manifest_sha256: row.manifestSha256!,
        timestamp,
        seal: presented.seal,
        roots: presented.trust_anchors ?? { timestamp_authority_root_sha256: null, c2pa_root_sha256: null },
        claims: { proven: say(claims.proven), reported_by_device: say(claims.reported_by_device), not_proven: say(claims.not_proven) },
        verification_url: presented.verification_url,
        package_url: presented.package_url,
        attachments: {
          manifest_json_base64: base64(artifacts.get("manifest.json")) ?? "",
          manifest_p7s_base64: base64(artifacts.get("manifest.p7s")),
          proof_tsr_base64: base64(artifacts.get("proof.tsr")) ?? "",
        },
        files: reportFiles,
      };
    }),
  );
  const holder = subject.holder.id;
  return {
    kind: subject.kind,
    language,
    organization: organization?.name ?? null,
    report_url: `${base}/v1/public/proofs/${holder}/${subject.kind === "pair" ? "pair-report.pdf" : "report.pdf"}`,
    verification_url: `${base}/p/${holder}`,
    proofs,
    deadline: deadline.toISOString(),
  };
}
