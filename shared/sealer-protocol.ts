import { z } from "zod";
import { SEALER_SIGNAL_CODES } from "./integrity-signals.ts";
import { RevocationEntrySchema } from "./revocation-data.ts";

/**
 * The sealer protocol: the job the Worker sends to the sealer's `POST /seal`, the sealer's answers and
 * its error bodies (sealer/README.md). Both sides parse what they receive with these schemas instead of
 * trusting a cast: the sealer answers a job it cannot read with 400, the Worker treats an answer it
 * cannot read as a transient failure that names the problem.
 *
 * Raise the version with any change the other side would misread. A container rollout lets one side
 * run a version ahead of the other for a while; each refuses the other's version by name (the sealer
 * with 400 `unsupported_protocol_version`, the Worker as a transient failure) and the queue's retry
 * gets through once both speak the same one.
 */
/**
 * 2: each sealed file also carries its earlier Content Credentials, decoded facts and integrity signals.
 * 3: a job may say where to write each file's thumbnail, and the answer says which thumbnail was made.
 * 4: the sealed answer carries the revocation data (CRLs) of both chains, captured at sealing.
 * 5: the sealed answer may say where the job's time went (timings).
 * 6: a job names the proof's organization, the before's manifest SHA-256 and each file's position in its step;
 *    the sealed answer carries manifest.p7s, the seal over manifest.json version 2 (docs/adr/0027).
 * 7: each sealed file carries its perceptual fingerprint (pHash and dHash, docs/adr/0041), null when not decoded.
 * 8: the revocation data has a third chain, `seal` (manifest.p7s's certificate), and manifest.p7s lists the SHA-256
 *    of every revocation file (docs/adr/0049).
 * 9: each sealed photo also carries the fingerprints of five crops of it (docs/adr/0052), [] when not decoded.
 * 10: each sealed video carries the fingerprints of a few of its frames (docs/adr/0059), [] when none was decoded.
 * 11: each sealed photo also carries the fingerprints of four crops 5 % off one edge, which the Worker looks up but
 *     neither stores nor signs (docs/adr/0052), [] when not decoded.
 * 12: a thumbnail made carries the SHA-256 of its bytes, which the sealed record keeps (docs/adr/0021).
 */
export const SEALER_PROTOCOL_VERSION = 12;

const protocolVersion = z.literal(SEALER_PROTOCOL_VERSION);
const sha256Hex = z.string().regex(/^[0-9a-fA-F]{64}$/, "a SHA-256 in hex");
const instant = z.iso.datetime({ offset: true });
const headers = z.record(z.string(), z.string());
/** A short-lived signed URL: the sealer holds no storage credentials of its own. */
const signedRequest = z.strictObject({ url: z.url(), method: z.string().min(1), headers });

export const SealJobFileSchema = z.strictObject({
  id: z.string().min(1),
  step_id: z.string().min(1),
  /** 1-based index of the shot within its step, in capture order. */
  position: z.number().int().positive(),
  kind: z.enum(["photo", "video"]),
  content_type: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: sha256Hex,
  captured_at: instant,
  capture_context: z.record(z.string(), z.unknown()).nullable(),
  /** GET: the original bytes. */
  source: z.strictObject({ url: z.url(), headers: headers.optional() }),
  /** Where the signed copy is written. */
  destination: signedRequest,
  /** Deletes the signed copy: used when the job stops before it ends. */
  discard: signedRequest,
  /**
   * Where the sealer writes the file's light thumbnail (made from the signed bytes, never from the phone)
   * and how it deletes it; absent: no thumbnail is made.
   */
  thumbnail: z.strictObject({ destination: signedRequest, discard: signedRequest }).optional(),
});
export type SealJobFile = z.infer<typeof SealJobFileSchema>;

export const SealJobSchema = z.strictObject({
  proof: z
    .strictObject({
      id: z.string().min(1),
      organization_id: z.string().min(1),
      mode: z.enum(["test", "live"]),
      external_reference: z.string(),
      party: z.string(),
      stage: z.string().nullable(),
      category: z.string().nullable(),
      location_reference: z.string().nullable(),
      session_id: z.string().min(1),
      compare_to: z.string().nullable(),
      /** The SHA-256 of the before's manifest.json, for an "after" (null otherwise): the after's manifest names it. */
      compare_to_manifest_sha256: sha256Hex.nullable(),
      template_sha256: sha256Hex,
    })
    // An "after" names its "before" by id and by manifest hash together (manifest.json version 2).
    .refine((proof) => (proof.compare_to === null) === (proof.compare_to_manifest_sha256 === null), {
      message: "compare_to and compare_to_manifest_sha256 are given together",
      path: ["compare_to_manifest_sha256"],
    }),
  files: z.array(SealJobFileSchema),
  /**
   * The instant after which the Worker no longer waits for the answer: the sealer then aborts the job
   * (as it does when the Worker disconnects), buys no more timestamps and discards the copies it wrote.
   */
  deadline: instant,
});
export type SealJob = z.infer<typeof SealJobSchema>;

/** The body of `POST /seal`. */
export const SealRequestSchema = SealJobSchema.extend({ protocol_version: protocolVersion });
export type SealRequest = z.infer<typeof SealRequestSchema>;

export const PriorCredentialsSchema = z.strictObject({
  claim_generator: z.string().nullable(),
  digital_source_types: z.array(z.string()),
  validation_state: z.enum(["Invalid", "Valid", "Trusted"]),
  signer: z.string().nullable(),
});
export type PriorCredentials = z.infer<typeof PriorCredentialsSchema>;

const nullableCount = z.number().int().nonnegative().nullable();
export const DecodedSchema = z.strictObject({ width: nullableCount, height: nullableCount, duration_ms: nullableCount });
export type DecodedFacts = z.infer<typeof DecodedSchema>;

/** The only media type of a thumbnail: what the sealer makes, and what the public route serves one as. */
export const THUMBNAIL_CONTENT_TYPE = "image/webp";

/** The largest thumbnail the sealer writes (100 KB): what a reader of one reads at most. */
export const THUMBNAIL_MAX_BYTES = 100 * 1024;

/**
 * The thumbnail written to the job's `thumbnail.destination`: a WebP of at most 480 px and 100 KB, and the SHA-256 of
 * the bytes written, which the proof's sealed record keeps so that other bytes put there are never shown as its picture.
 */
export const ThumbnailSchema = z.strictObject({
  content_type: z.literal(THUMBNAIL_CONTENT_TYPE),
  width: z.number().int().positive().max(480),
  height: z.number().int().positive().max(480),
  size: z.number().int().positive().max(THUMBNAIL_MAX_BYTES),
  sha256: sha256Hex,
});
export type Thumbnail = z.infer<typeof ThumbnailSchema>;

const hash64Hex = z.string().regex(/^[0-9a-f]{16}$/, "64 bits in lower-case hex");
/** A photo's perceptual fingerprint, from its decoded pixels (docs/adr/0041). */
export const PerceptualFingerprintSchema = z.strictObject({ phash: hash64Hex, dhash: hash64Hex });
export type PerceptualFingerprint = z.infer<typeof PerceptualFingerprintSchema>;
/** A video frame's fingerprint, computed as a photo's, and where the frame was taken, in ms from the start (docs/adr/0059). */
export const FrameFingerprintSchema = z.strictObject({ at_ms: z.number().int().nonnegative(), phash: hash64Hex, dhash: hash64Hex });
export type FrameFingerprint = z.infer<typeof FrameFingerprintSchema>;

/** One integrity signal the sealer computed from the bytes (shared/integrity-signals.ts). */
export const SignalSchema = z.strictObject({ code: z.enum(SEALER_SIGNAL_CODES), detail: z.string() });

/**
 * The steps of a job whose time the sealer reports: fetching originals; checking them (hashes, type,
 * container, earlier credentials, decoded facts); C2PA signing, without the wait for its timestamp;
 * timestamps (each file's sigTst2, the manifest's token, their checks and the revocation data of both
 * chains); writing the signed copies (and their thumbnails, made meanwhile).
 */
export const SEALING_PHASES = ["download", "verification", "signing", "timestamps", "upload"] as const;
export type SealingPhase = (typeof SEALING_PHASES)[number];

const milliseconds = z.number().nonnegative();
/**
 * Where a job's time went (sealer/src/phase-clock.ts): per phase, the wall time during which at least
 * one file was in it and the sum over files (files run concurrently); and the requests it made to each
 * timestamp authority: the proof's (the qualified one for live proofs, paid per request) and, when one is
 * configured apart, the signatures' (docs/adr/0020). Diagnostics: the Worker logs them, nothing stores
 * or shows them.
 */
export const SealTimingsSchema = z.strictObject({
  total_ms: milliseconds,
  phases: z.partialRecord(z.enum(SEALING_PHASES), z.strictObject({ wall_ms: milliseconds, file_ms: milliseconds })),
  authority_calls: z.strictObject({ proof_authority: z.number().int().nonnegative(), signature_authority: z.number().int().nonnegative() }),
});
export type SealTimings = z.infer<typeof SealTimingsSchema>;

export const SealedResultSchema = z.strictObject({
  status: z.literal("sealed"),
  manifest: z.string().min(1),
  manifest_sha256: sha256Hex,
  /** manifest.p7s: the detached CMS signature (CAdES-B, DER) of manifest.json by the mode's proof seal (docs/adr/0027). */
  manifest_p7s_base64: z.base64().min(1),
  tsr_base64: z.base64().min(1),
  chain_pem: z.string().min(1),
  c2pa_trust_anchor_pem: z.string().min(1),
  timestamp: z.strictObject({ gen_time: instant, serial: z.string().min(1), policy: z.string().min(1), authority: z.string().min(1), qualified: z.boolean() }),
  files: z.array(
    z.strictObject({
      id: z.string().min(1),
      signed_sha256: sha256Hex,
      signed_size: z.number().int().nonnegative(),
      /** CRC-32 of the signed copy, so the Worker's package ZIP never computes it over large files. */
      signed_crc32: z.number().int().min(0).max(0xffffffff),
      sniffed_type: z.string().min(1),
      prior_c2pa: z.boolean(),
      /** What the file's own earlier Content Credentials claimed (kept as its parent ingredient); null: none. */
      prior_credentials: PriorCredentialsSchema.nullable(),
      /** Decoded from the bytes, to set beside what the device reported (null: not decodable here). */
      decoded: DecodedSchema,
      signals: z.array(SignalSchema),
      /** null: not a photo the sealer decodes (a video, whose frames are in `frame_fingerprints`; HEVC HEIC) or too large to decode. */
      fingerprint: PerceptualFingerprintSchema.nullable(),
      /** 95 % of the photo kept against its top-left, top-right, bottom-left and bottom-right corner, and centred; [] when `fingerprint` is null. */
      crop_fingerprints: z.array(PerceptualFingerprintSchema).max(5),
      /**
       * 95 % of the photo's width kept against its right and its left edge, then 95 % of its height against its bottom
       * and its top edge (5 % off the left, right, top, bottom): looked up, not stored, not signed; [] when `fingerprint` is null.
       */
      query_crop_fingerprints: z.array(PerceptualFingerprintSchema).max(4),
      /** A video's frames at 10 %, 50 % and 90 % of its duration; [] for a photo, or when ffmpeg decoded none (absent, too large, too slow). */
      frame_fingerprints: z.array(FrameFingerprintSchema).max(3),
      /** null: none was asked for, or the sealer cannot decode the format (a video, HEVC HEIC). */
      thumbnail: ThumbnailSchema.nullable(),
    }),
  ),
  /** Revocation data of the authority's, the C2PA signer's and the proof seal's chains, captured at sealing (shared/revocation-data.ts). */
  revocation: z.array(RevocationEntrySchema),
  /** Where the job's time went, for the Worker's log; optional (an answer without it is complete). */
  timings: SealTimingsSchema.optional(),
});
export type SealedResult = z.infer<typeof SealedResultSchema>;

/** Why a file cannot be sealed: the proof fails for good with this code (no retry helps). */
export const SEAL_FAILURE_CODES = [
  "file_missing",
  "file_size_mismatch",
  "file_hash_mismatch",
  "file_type_not_allowed",
  "file_type_mismatch",
  "file_corrupt",
] as const;
export type SealFailureCode = (typeof SEAL_FAILURE_CODES)[number];

export const FailedResultSchema = z.strictObject({
  status: z.literal("failed"),
  code: z.enum(SEAL_FAILURE_CODES),
  message: z.string(),
  file_id: z.string().optional(),
});
export type FailedResult = z.infer<typeof FailedResultSchema>;

export type SealResult = SealedResult | FailedResult;

/** The body of a 200 answer to `POST /seal`: the job ran to its end, sealed or failed for good. */
export const SealAnswerSchema = z.discriminatedUnion("status", [
  SealedResultSchema.extend({ protocol_version: protocolVersion }),
  FailedResultSchema.extend({ protocol_version: protocolVersion }),
]);
export type SealAnswer = z.infer<typeof SealAnswerSchema>;

/**
 * The sealer's error bodies. 400 `invalid_job` / `unsupported_protocol_version` and 413 `job_too_large`:
 * the Worker sent what this sealer cannot read. 401 `unauthenticated`: not the shared bearer secret.
 * 503 `sealing_aborted` (the Worker left or the deadline passed) and `sealing_unavailable` (authority or
 * storage unreachable): worth a retry. 500 `internal_error`, 404 `not_found`.
 */
export const SEALER_ERROR_CODES = [
  "invalid_job",
  "unsupported_protocol_version",
  "job_too_large",
  "unauthenticated",
  "sealing_aborted",
  "sealing_unavailable",
  "not_found",
  "internal_error",
] as const;
export type SealerErrorCode = (typeof SEALER_ERROR_CODES)[number];

export const SealerErrorSchema = z.strictObject({ protocol_version: protocolVersion, code: z.enum(SEALER_ERROR_CODES), message: z.string() });
export type SealerError = z.infer<typeof SealerErrorSchema>;

export const sealerError = (code: SealerErrorCode, message: string): SealerError => ({ protocol_version: SEALER_PROTOCOL_VERSION, code, message });

/** `wrongVersion`: the message is from a peer speaking another version of the protocol. */
export type ProtocolParse<T> = { ok: true; value: T } | { ok: false; wrongVersion: boolean; problem: string };

/**
 * Reads one protocol message (JSON text) with its schema. The version is checked first, so a peer a
 * version ahead or behind is named as such rather than as a list of unexpected fields.
 */
export function parseProtocolMessage<T>(schema: z.ZodType<T>, text: string): ProtocolParse<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, wrongVersion: false, problem: `not JSON (${(error as Error).message})` };
  }
  const version = typeof value === "object" && value !== null ? (value as { protocol_version?: unknown }).protocol_version : undefined;
  if (version !== SEALER_PROTOCOL_VERSION) {
    return { ok: false, wrongVersion: true, problem: `protocol_version ${JSON.stringify(version ?? null)}, expected ${SEALER_PROTOCOL_VERSION}` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, wrongVersion: false, problem: describeIssues(parsed.error) };
}

/** One line for a log or an error body: each faulty field with what is wrong with it (the first five). */
function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => `${issue.path.length === 0 ? "(body)" : issue.path.join(".")}: ${issue.message}`);
  const more = error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : "";
  return issues.join("; ") + more;
}
