import { z } from "zod";
import { THUMBNAIL_CONTENT_TYPE } from "../../../shared/sealer-protocol.ts";

/**
 * The shape of a sealed record's entries (forger session 7, G13), checked on every read: a record with no SHA-256 in
 * D1 (sealed before migration 0028) is bound by nothing, so a value of another type than sealing wrote would make the
 * routes presenting it fail, or be shown as the service's observation. Exactly the fields read, with the types the
 * file's row gives them; other keys are ignored (never read).
 */
const count = z.number().nullish();
const text = z.string().nullish();

/**
 * Every array of a record is bounded (forger session 8, H0): zod, checking each element of an unbounded one, gathers
 * the issues of 100,000 failing elements with one spread call that overflows the stack (a RangeError, not a failed
 * parse); past its bound an array fails with one issue before its elements are checked. The bounds are far above
 * what sealing writes: a file's signals are its two likenesses (photo-similarity.ts), its earlier credentials name a
 * few source types, and a proof holds at most 20 steps of 50 shots (capture template limits).
 */
const SIGNALS_PER_FILE = 64;
const SOURCE_TYPES_PER_CREDENTIAL = 64;
const FILES_PER_RECORD = 10_000;

const CaptureContextShape = z
  .looseObject({
    method: text,
    device_time: text,
    width: count,
    height: count,
    duration_ms: count,
    clock_offset_ms: count,
    capture_page_version: text,
    geolocation: z.looseObject({ latitude: z.number(), longitude: z.number(), accuracy_m: z.number() }).nullish(),
  })
  .nullish();

const DecodedShape = z.looseObject({ width: count, height: count, duration_ms: count }).nullish();

const SignalShape = z.looseObject({
  code: z.string(),
  detail: z.string(),
  proof_id: text,
  step_id: text,
  other_file_id: text,
  distance: count,
  sealed_at: text,
});

const PriorCredentialsShape = z
  .looseObject({
    claim_generator: text,
    digital_source_types: z.array(z.string()).max(SOURCE_TYPES_PER_CREDENTIAL),
    validation_state: z.string(),
    signer: text,
  })
  .nullish();

/**
 * The sealer only ever makes a WebP (shared/sealer-protocol.ts): a record naming another type (forger session 7, G14:
 * `text/html` with the insider's HTML, served inline from the service's origin) is not what sealing wrote. Its SHA-256
 * is there since sealer protocol 12 (forger session 7, G6), absent before.
 */
const ThumbnailShape = z
  .looseObject({
    key: z.string(),
    content_type: z.literal(THUMBNAIL_CONTENT_TYPE),
    width: z.number(),
    height: z.number(),
    size: z.number(),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/)
      .optional(),
  })
  .nullish();

/** An entry of a record of facts (migration 0024): what D1 no longer held of the file. */
export const RecordedFactsShape = z.looseObject({
  captureContext: CaptureContextShape,
  decoded: DecodedShape,
  signals: z.array(SignalShape).max(SIGNALS_PER_FILE).nullish(),
  priorCredentials: PriorCredentialsShape,
  thumbnail: ThumbnailShape,
});

/** An entry of a record of whole files (docs/adr/0065): the facts and every other column of the file's row. */
export const SealedFileShape = RecordedFactsShape.extend({
  id: z.string(),
  sessionId: z.string(),
  proofId: text,
  stepId: z.string(),
  kind: z.enum(["photo", "video"]),
  contentType: z.string(),
  size: z.number(),
  sha256: z.string(),
  status: z.string(),
  originalKey: z.string(),
  signedKey: text,
  signedSha256: text,
  signedSize: count,
  sniffedType: text,
  priorC2pa: z.boolean().nullish(),
  signedCrc32: count,
  createdAt: z.string(),
  capturedAt: text,
});

/**
 * A record's whole shape, by the version D1 names (`proofs.sealed_record`): 1 facts only, 2 whole files. A version-2
 * record without its `file_order` is a record lacking the proof's files (`altered`), said where the order is read.
 */
export const SEALED_RECORD_SHAPES = {
  1: z.looseObject({ files: z.record(z.string(), RecordedFactsShape), file_order: z.array(z.string()).max(FILES_PER_RECORD).optional() }),
  2: z.looseObject({ files: z.record(z.string(), SealedFileShape), file_order: z.array(z.string()).max(FILES_PER_RECORD).optional() }),
} as const;
