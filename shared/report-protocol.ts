import { z } from "zod";
import { SEALER_PROTOCOL_VERSION } from "./sealer-protocol.ts";

/**
 * The sealer's `POST /report` (docs/adr/0044): the Worker sends what a proof's (or a before/after pair's) PDF
 * evidence report says, every fact as the service holds it and every sentence the report shares with the page
 * (claims, signals, verdict) already in the report's language; the sealer lays it out, draws the photos from
 * their signed copies, seals the PDF and answers its bytes (`application/pdf`). Same protocol version as
 * `POST /seal`: a sealer without this route answers 404, which the Worker retries like any transient failure.
 */

/** The languages the report's own table is written in (sealer/src/report/report-messages.ts). */
export const REPORT_LANGUAGES = ["en", "fr", "es", "de"] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "a SHA-256 in lower-case hex");
const instant = z.iso.datetime({ offset: true });
const sentences = z.array(z.string().min(1));

export const ReportFileSchema = z.strictObject({
  id: z.string().min(1),
  step_id: z.string().min(1),
  /** The step's label in the report's language (the template's own fallback order). */
  step_label: z.string().min(1),
  /** The file's number in its proof, counted step by step as the page counts it (1-based). */
  number: z.number().int().positive(),
  /** Its 1-based position within its step: a pair's before and after are aligned on it. */
  position: z.number().int().positive(),
  kind: z.enum(["photo", "video"]),
  content_type: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: sha256Hex,
  signed_sha256: sha256Hex,
  /** When the service received the file, by its own clock. */
  received_at: instant,
  /** What the phone reported, named as reported; `clock_offset_ms` is the service's own measure of the device's clock. */
  reported: z.strictObject({
    method: z.enum(["camera", "file", "unknown"]),
    device_time: z.string().nullable(),
    geolocation: z.strictObject({ latitude: z.number(), longitude: z.number(), accuracy_m: z.number() }).nullable(),
  }),
  clock_offset_ms: z.number().nullable(),
  /** The public signals (docs/adr/0041): the sentence in the report's language, the sealer's figures in English. */
  signals: z.array(z.strictObject({ code: z.string().min(1), sentence: z.string().min(1), detail: z.string() })),
  /** GET: the signed copy, for a photo the sealer can draw; null for a video or a format it cannot decode. */
  picture: z.strictObject({ url: z.url(), headers: z.record(z.string(), z.string()).optional() }).nullable(),
});
export type ReportFile = z.infer<typeof ReportFileSchema>;

export const ReportProofSchema = z.strictObject({
  id: z.string().min(1),
  mode: z.enum(["test", "live"]),
  side: z.enum(["single", "before", "after"]),
  external_reference: z.string(),
  party: z.enum(["provider", "recipient"]),
  stage: z.string().nullable(),
  category: z.string().nullable(),
  location_reference: z.string().nullable(),
  /** The verification core's verdict when the report was asked for, and its sentence in the report's language. */
  verdict: z.strictObject({ code: z.string().min(1), status: z.enum(["valid", "invalid", "pending", "failed"]), sentence: z.string().min(1) }),
  sealed_at: instant,
  manifest_sha256: sha256Hex,
  timestamp: z.strictObject({ gen_time: instant, qualified: z.boolean(), authority: z.string().min(1), serial: z.string(), policy: z.string() }),
  seal: z.strictObject({ certificate_subject: z.string(), certificate_sha256: z.string() }).nullable(),
  roots: z.strictObject({ timestamp_authority_root_sha256: z.string().nullable(), c2pa_root_sha256: z.string().nullable() }),
  claims: z.strictObject({ proven: sentences, reported_by_device: sentences, not_proven: sentences }),
  verification_url: z.url(),
  package_url: z.url(),
  /** Attached to the PDF as associated files, so that the report alone carries the proof. */
  attachments: z.strictObject({
    manifest_json_base64: z.base64().min(1),
    manifest_p7s_base64: z.base64().min(1).nullable(),
    proof_tsr_base64: z.base64().min(1),
  }),
  files: z.array(ReportFileSchema).min(1),
});
export type ReportProof = z.infer<typeof ReportProofSchema>;

export const ReportJobSchema = z
  .strictObject({
    kind: z.enum(["proof", "pair"]),
    language: z.enum(REPORT_LANGUAGES),
    /** The organization that asked for the proof, as the page names it. */
    organization: z.string().nullable(),
    /** The public route this report is served at, printed in it. */
    report_url: z.url(),
    /** The page the QR code opens: the proof's, or for a pair the after's. */
    verification_url: z.url(),
    /** One proof (`single`), or a pair's before then after. */
    proofs: z.array(ReportProofSchema).min(1).max(2),
    /** When the Worker stops waiting: the sealer gives up then. */
    deadline: instant,
  })
  .refine(
    (job) =>
      job.kind === "proof"
        ? job.proofs.length === 1 && job.proofs[0]!.side === "single"
        : job.proofs.length === 2 && job.proofs[0]!.side === "before" && job.proofs[1]!.side === "after",
    { message: "a proof's report has one proof (single), a pair's its before then its after", path: ["proofs"] },
  );
export type ReportJob = z.infer<typeof ReportJobSchema>;

/** The body of `POST /report`. */
export const ReportRequestSchema = ReportJobSchema.safeExtend({ protocol_version: z.literal(SEALER_PROTOCOL_VERSION) });
export type ReportRequest = z.infer<typeof ReportRequestSchema>;
