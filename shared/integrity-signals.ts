/**
 * Integrity signals: facts about a sealed file that a reader of the proof should weigh, each with a
 * stable code. None fails a proof; each says that what the device reported and what the bytes show do
 * not agree, or that the file has a history before this capture (docs/adr/0036-created-and-gathered-assertions.md).
 * The sealer computes those it can see in the bytes; the Worker adds `sealed_before`, which needs the
 * organization's other proofs.
 */
export const SEALER_SIGNAL_CODES = [
  /** The file came with C2PA Content Credentials of its own (kept as the parent ingredient). */
  "prior_content_credentials",
  /** The file carries a C2PA block that cannot be read (damaged or forged): kept as parent, without its claims. */
  "prior_content_credentials_unreadable",
  /** Declared a camera shot, yet its JPEG carries a camera maker or model in EXIF, as a gallery file does. */
  "camera_shot_has_camera_exif",
  /** Declared a camera shot, yet its EXIF original date is far from the moment we received it. */
  "camera_shot_original_date_far",
  /**
   * Declared a camera shot, yet its format is not one the capture page's camera produces: a photo from it
   * is a JPEG (canvas), a video MP4 or WebM (MediaRecorder). A "camera" PNG, HEIC, WebP or QuickTime came from elsewhere.
   */
  "camera_shot_format_not_from_capture_page",
  /** The width and height the device reported are not those decoded from the file. */
  "dimensions_mismatch",
  /** The duration the device reported is not the one decoded from the video. */
  "duration_mismatch",
  /** The device's clock was far from ours when it reported the shot. */
  "device_time_far",
  /** The device reported a location with an accuracy of 0 m, which no real fix has. */
  "location_accuracy_zero",
  /** A photo whose decoded frame is near-uniform (its luminance hardly varies): a covered lens, a blank screen. */
  "blank_frame",
  /** A photo of many pixels stored in far fewer bytes than a camera's would be: a small picture enlarged, or heavily recompressed. */
  "image_smaller_than_declared",
] as const;

/** The same original bytes were already sealed in another proof of the same organization. */
export const SEALED_BEFORE = "sealed_before" as const;

/**
 * The file (a photo, or a video by its frames) looks like a photo sealed earlier in another proof of the organization
 * (docs/adr/0052). Each likeness is named by what the file looks like, a photo or a video (docs/adr/0063).
 */
export const SIMILAR_TO_EARLIER_PHOTO = "similar_to_earlier_photo" as const;
/** The file looks like a video (one of its frames) sealed earlier in another proof of the organization (docs/adr/0063). */
export const SIMILAR_TO_EARLIER_VIDEO = "similar_to_earlier_video" as const;
/** The file looks like a photo of the same proof (the same shot taken twice is fine). */
export const SIMILAR_WITHIN_PROOF = "similar_within_proof" as const;
/** The file looks like a video (one of its frames) of the same proof (the same scene shot twice is fine; docs/adr/0063). */
export const SIMILAR_TO_VIDEO_WITHIN_PROOF = "similar_to_video_within_proof" as const;

/** The likenesses to a file of an earlier proof, which the public view words without naming that proof. */
export const LIKENESS_TO_EARLIER = [SIMILAR_TO_EARLIER_PHOTO, SIMILAR_TO_EARLIER_VIDEO] as const;

export const WORKER_SIGNAL_CODES = [SEALED_BEFORE, ...LIKENESS_TO_EARLIER, SIMILAR_WITHIN_PROOF, SIMILAR_TO_VIDEO_WITHIN_PROOF] as const;
export const SIGNAL_CODES = [...SEALER_SIGNAL_CODES, ...WORKER_SIGNAL_CODES] as const;
export type SignalCode = (typeof SIGNAL_CODES)[number];

/**
 * Whether a signal's `detail` carries figures (sizes, dates, distances, EXIF names) that its translated sentence does
 * not: a reader is shown them beside the sentence, as written (in English). Otherwise the detail only repeats the
 * sentence. Every code says which, so a new signal cannot be left out.
 */
const DETAIL_CARRIES_FIGURES: Record<SignalCode, boolean> = {
  prior_content_credentials: false,
  prior_content_credentials_unreadable: false,
  camera_shot_has_camera_exif: true,
  camera_shot_original_date_far: true,
  camera_shot_format_not_from_capture_page: true,
  dimensions_mismatch: true,
  duration_mismatch: true,
  device_time_far: true,
  location_accuracy_zero: false,
  blank_frame: true,
  image_smaller_than_declared: true,
  sealed_before: false,
  similar_to_earlier_photo: true,
  similar_to_earlier_video: true,
  similar_within_proof: true,
  similar_to_video_within_proof: true,
};

/** Whether a signal's detail is worth showing beside its sentence (`DETAIL_CARRIES_FIGURES`); an unknown code's is not. */
export const carriesFigures = (code: string): boolean => DETAIL_CARRIES_FIGURES[code as SignalCode] === true;

/** Whether a signal is a likeness to a file of an earlier proof (`similar_to_earlier_photo` or `…_video`). */
export const isLikenessToEarlier = (code: string): boolean => (LIKENESS_TO_EARLIER as readonly string[]).includes(code);

/**
 * A signal as stored with a file. `proof_id` names the earlier proof of a `sealed_before` or a likeness to an
 * earlier proof (`similar_to_earlier_photo`, `similar_to_earlier_video`), `step_id` its step: both for the owning
 * organization only, never shown publicly. `distance` (pHash bits) and `sealed_at` go with the similarity signals;
 * `other_file_id` names the other file of the same proof for `similar_within_proof` and `similar_to_video_within_proof`.
 */
export interface StoredSignal {
  code: SignalCode;
  detail: string;
  proof_id?: string;
  step_id?: string;
  other_file_id?: string;
  distance?: number;
  sealed_at?: string;
}
