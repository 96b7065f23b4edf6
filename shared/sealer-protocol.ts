/** The job the Worker hands to the sealer (`POST /seal`) and its answers; see sealer/README.md. */
export interface SealJob {
  proof: {
    id: string;
    mode: "test" | "live";
    external_reference: string;
    party: string;
    stage: string | null;
    category: string | null;
    location_reference: string | null;
    session_id: string;
    compare_to: string | null;
    template_sha256: string;
  };
  files: SealJobFile[];
  /**
   * ISO 8601 instant after which the Worker no longer waits for the answer: the sealer then aborts the job
   * (as it does when the Worker disconnects), buys no more timestamps and discards the copies it wrote.
   */
  deadline: string;
}

export interface SealJobFile {
  id: string;
  step_id: string;
  kind: "photo" | "video";
  content_type: string;
  size: number;
  sha256: string;
  captured_at: string;
  capture_context: Record<string, unknown> | null;
  /** GET: the original bytes, through a short-lived signed URL. */
  source: { url: string; headers?: Record<string, string> };
  /** Where the signed copy is written, through a short-lived signed URL. */
  destination: { url: string; method: string; headers: Record<string, string> };
  /** Deletes the signed copy, through a short-lived signed URL: used when the job stops before it ends. */
  discard: { url: string; method: string; headers: Record<string, string> };
}

export interface SealedResult {
  status: "sealed";
  manifest: string;
  manifest_sha256: string;
  tsr_base64: string;
  chain_pem: string;
  c2pa_trust_anchor_pem: string;
  timestamp: { gen_time: string; serial: string; policy: string; authority: string; qualified: boolean };
  /** `signed_crc32`: CRC-32 of the signed copy, so the Worker's package ZIP never computes it over large files. */
  files: { id: string; signed_sha256: string; signed_size: number; signed_crc32: number; sniffed_type: string; prior_c2pa: boolean }[];
}

export interface FailedResult {
  status: "failed";
  code: string;
  message: string;
  file_id?: string;
}

export type SealResult = SealedResult | FailedResult;
