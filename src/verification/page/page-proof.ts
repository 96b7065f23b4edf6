import type { Verification } from "../verify-proof.ts";
import type { ClaimCode } from "../claims.ts";
import type { PageStep } from "./step-labels.ts";

export interface PageFile {
  id: string;
  step_id: string;
  kind: string;
  content_type: string;
  size: number;
  sha256: string;
  signed_sha256: string | null;
  url: string;
  thumbnail_url: string | null;
  observed: { received_at: string; decoded: { width: number | null; height: number | null; duration_ms: number | null } | null };
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
  /** The proof seal's certificate (manifest.p7s); null: sealed before proofs were sealed as a whole. */
  seal: { certificate_subject: string; certificate_sha256: string } | null;
  trust_anchors: { timestamp_authority_root_sha256: string | null; c2pa_root_sha256: string | null } | null;
  package_url: string;
  verification_url: string;
  verification: Verification;
  claims: Record<"proven" | "reported_by_device" | "not_proven", { code: ClaimCode }[]>;
}

export type Messages = Record<string, string>;

/** A file as the page names it: its number in its own proof (counted step by step), its step, and its side in a pair. */
export interface NumberedFile {
  file: PageFile;
  number: number;
  /** Its 1-based place within its step: a pair's before and after are aligned on it, as in the PDF report. */
  position: number;
  step: PageStep;
  proofId: string;
  side: "single" | "before" | "after";
}

export type Numbering = ReadonlyMap<string, NumberedFile>;

/**
 * Each proof's files in the order the gallery shows them (step by step), numbered from 1 within their own proof,
 * as the PDF report numbers them: the tile, the warning summary and the technical details name a file alike.
 */
export function numberFiles(proof: PageProof, steps: PageStep[], side: NumberedFile["side"]): NumberedFile[] {
  const ordered = steps.flatMap((step) => proof.files.filter((file) => file.step_id === step.id).map((file, i) => ({ file, step, position: i + 1 })));
  return ordered.map((entry, i) => ({ ...entry, number: i + 1, proofId: proof.id, side }));
}

/** "Photo 3", or in a pair's summary "After · Photo 3". */
export function fileName(file: PageFile, m: Messages, numbering: Numbering, withSide = false): string {
  const numbered = numbering.get(file.id);
  const name = `${m[`kind_${file.kind}`] ?? file.kind}${numbered ? ` ${numbered.number}` : ""}`;
  return withSide && numbered && numbered.side !== "single" ? `${m[numbered.side]} · ${name}` : name;
}
