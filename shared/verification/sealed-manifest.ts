/** One file as the sealed manifest lists it (version 2; version 1 lacks `position` and `prior_credentials`). */
export interface ManifestFile {
  id: string;
  step_id: string | null;
  position: number | null;
  content_type: string;
  /** SHA-256 of the file as received (the original). */
  sha256: string;
  /** SHA-256 of the signed copy in the package. */
  signed_sha256: string | null;
  /** The file arrived with earlier Content Credentials: its original cannot be recovered by stripping APP11. */
  prior_credentials: boolean;
}

/** The proof-level fields a dispute turns on, as manifest.json states them. */
export interface SealedManifest {
  version: number;
  proof_id: string | null;
  mode: string | null;
  /** Every top-level field, for comparing the files' capture assertions with it. */
  fields: Record<string, unknown>;
  files: ManifestFile[];
}

const text = (value: unknown) => (typeof value === "string" ? value : null);

/** manifest.json read as the sealer writes it (canonical JSON); null when it is not a manifest at all. */
export function readManifest(bytes: Uint8Array): SealedManifest | null {
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return null;
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) return null;
  const fields = document as Record<string, unknown>;
  if (!Array.isArray(fields.files) || typeof fields.version !== "number") return null;
  const files: ManifestFile[] = [];
  for (const entry of fields.files as unknown[]) {
    const file = (entry ?? {}) as Record<string, unknown>;
    if (typeof file.id !== "string" || typeof file.sha256 !== "string" || typeof file.content_type !== "string") return null;
    files.push({
      id: file.id,
      step_id: text(file.step_id),
      position: typeof file.position === "number" ? file.position : null,
      content_type: file.content_type,
      sha256: file.sha256.toLowerCase(),
      signed_sha256: text(file.signed_sha256)?.toLowerCase() ?? null,
      prior_credentials: file.prior_credentials === true,
    });
  }
  return { version: fields.version, proof_id: text(fields.proof_id), mode: text(fields.mode), fields, files };
}
