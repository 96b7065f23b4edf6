import { createHash } from "node:crypto";
import { rootFingerprints } from "../../shared/trust-anchors.ts";
import { readManifest } from "../../shared/verification/sealed-manifest.ts";
import {
  C2PA_CONTENT_TYPES,
  type FileEvidence,
  type VerificationPins,
  type VerificationResult,
  verifyProof,
} from "../../shared/verification/verify-proof-core.ts";
import { jpegWithoutApp11 } from "./jpeg-original.ts";
import { readC2pa } from "./read-c2pa.ts";
import { readZip } from "./read-zip.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const FILES = "files/";

/** The package's roots c2pa-rs may trust: the pinned ones when pinned, else every root the package holds. */
async function c2paAnchors(entries: Map<string, Uint8Array>, pins: VerificationPins): Promise<string> {
  const roots = async (name: string, pin: string | undefined) =>
    (await rootFingerprints(new TextDecoder().decode(entries.get(name) ?? new Uint8Array()))).filter((root) => !pin || root.sha256 === pin.toLowerCase());
  // The authority's root signs the C2PA timestamps (sigTst2): c2pa-rs needs it beside the service root.
  const anchors = [...(await roots("c2pa-trust-anchor.pem", pins.serviceRootSha256)), ...(await roots("chain.pem", pins.tsaRootSha256))];
  return anchors.map((root) => root.pem).join("\n");
}

/**
 * What proof-verify observes of each signed file in the package (`files/<id>.<ext>`): its hash, its C2PA
 * reading with c2pa-rs trusting only the package's roots that are pinned, and a JPEG's original (APP11
 * segments removed). The content type is the sealed manifest's, when it lists the file.
 */
async function filesEvidence(entries: Map<string, Uint8Array>, pins: VerificationPins, now: Date): Promise<Map<string, FileEvidence>> {
  const manifest = readManifest(entries.get("manifest.json") ?? new Uint8Array());
  const listed = new Map((manifest?.files ?? []).map((file) => [file.id, file.content_type]));
  const anchors = await c2paAnchors(entries, pins);
  const evidence = new Map<string, FileEvidence>();
  for (const [name, bytes] of entries) {
    // Anything under files/, in a sub-folder too, is a file of the package: what the manifest does not list is extra.
    if (!name.startsWith(FILES) || name.endsWith("/")) continue;
    const path = name.slice(FILES.length);
    // One file per id: a second one under a held file's id (files/<id>.png beside files/<id>.jpg) goes by its whole
    // name, which no manifest id is, so files_listed names it as extra instead of the one hiding the other.
    const id = evidence.has(path.replace(/\.[^.]+$/, "")) ? path : path.replace(/\.[^.]+$/, "");
    const contentType = listed.get(id);
    evidence.set(id, {
      present: true,
      sha256: sha256(bytes),
      checked_at: now.toISOString(),
      c2pa: contentType && C2PA_CONTENT_TYPES.has(contentType) ? await readC2pa(bytes, contentType, anchors) : null,
      original_sha256: contentType === "image/jpeg" ? sha256(jpegWithoutApp11(bytes)) : null,
    });
  }
  return evidence;
}

/**
 * Verifies a package (its ZIP, or the entries of its unzipped folder) trusting nothing in it but the pinned
 * roots: the bytes become each file's evidence, and the one verification core (shared/verification) decides.
 */
export async function verifyPackage(zip: Uint8Array | Map<string, Uint8Array>, pins: VerificationPins, now: Date = new Date()): Promise<VerificationResult> {
  let entries: Map<string, Uint8Array>;
  try {
    entries = zip instanceof Map ? zip : readZip(zip);
  } catch (error) {
    const result = await verifyProof({ entries: new Map(), files: new Map(), pins, now });
    result.checks[0]!.detail = `the package cannot be read: ${(error as Error).message}`;
    return result;
  }
  return verifyProof({ entries, files: await filesEvidence(entries, pins, now), pins, now });
}
