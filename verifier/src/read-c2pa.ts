import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initSync, WasmReader } from "@contentauth/c2pa-wasm";
import type { C2paEvidence } from "../../shared/verification/verify-proof-core.ts";

/** The service's own assertion in every signed file: what it observed, and the proof the file belongs to. */
export const CAPTURE_ASSERTION = "com.proofseal.capture";

let ready = false;

/** c2pa-rs (WebAssembly) reads through FileReaderSync, which Node lacks: a stand-in returning the blob's bytes. */
function initC2pa(): void {
  if (ready) return;
  (globalThis as Record<string, unknown>).FileReaderSync = class {
    readAsArrayBuffer(blob: { bytes: Uint8Array }): ArrayBuffer {
      return blob.bytes.slice().buffer as ArrayBuffer;
    }
  };
  initSync({ module: readFileSync(createRequire(import.meta.url).resolve("@contentauth/c2pa-wasm/c2pa.wasm")) });
  ready = true;
}

type ManifestStore = {
  validation_state?: string;
  validation_results?: { activeManifest?: { failure?: { code: string }[] } };
  active_manifest?: string;
  manifests?: Record<string, { signature_info?: { cert_serial_number?: string }; assertions?: { label?: string; data?: unknown }[] }>;
};

const STATES = new Set(["Trusted", "Valid", "Invalid"]);

/** crJSON (c2pa-rs's Content Credentials JSON): each manifest's signing certificate, its issuer attribute by attribute. */
type CrJson = { manifests?: { label?: string; signature?: { certificateInfo?: { issuer?: unknown } } }[] };

/** The issuer's name of the certificate that signed manifest `label`; null when c2pa-rs does not give it. */
function signerIssuer(reader: WasmReader, label: string | undefined): Record<string, string> | null {
  try {
    const issuer = (JSON.parse(reader.crJson()) as CrJson).manifests?.find((manifest) => manifest.label === label)?.signature?.certificateInfo?.issuer;
    if (issuer === null || typeof issuer !== "object" || Array.isArray(issuer)) return null;
    const entries = Object.entries(issuer);
    return entries.length > 0 && entries.every(([, value]) => typeof value === "string") ? (Object.fromEntries(entries) as Record<string, string>) : null;
  } catch {
    return null;
  }
}

/**
 * The file's C2PA reading with c2pa-rs, trusting only `anchorsPem`: its validation state (no manifest or a
 * broken one is `Invalid`), the active manifest's failures, its `com.proofseal.capture` assertion, and the
 * serial number (decimal) and issuer's name of the certificate that signed it.
 */
export async function readC2pa(bytes: Uint8Array, format: string, anchorsPem: string): Promise<C2paEvidence> {
  initC2pa();
  try {
    const reader = await WasmReader.fromBytes(format, bytes, JSON.stringify({ trust: { trust_anchors: anchorsPem }, verify: { verify_trust: true } }));
    const store = reader.manifestStore() as ManifestStore;
    const active = store.manifests?.[store.active_manifest ?? ""];
    const capture = active?.assertions?.find((assertion) => assertion.label === CAPTURE_ASSERTION)?.data;
    const state = store.validation_state ?? "Invalid";
    return {
      state: STATES.has(state) ? (state as C2paEvidence["state"]) : "Invalid",
      failures: (store.validation_results?.activeManifest?.failure ?? []).map((entry) => entry.code),
      capture: capture !== null && typeof capture === "object" && !Array.isArray(capture) ? (capture as Record<string, unknown>) : null,
      signerSerial: active?.signature_info?.cert_serial_number ?? null,
      signerIssuer: signerIssuer(reader, store.active_manifest),
    };
  } catch (error) {
    return { state: "Invalid", failures: [String((error as Error).message ?? error).slice(0, 200)], capture: null, signerSerial: null, signerIssuer: null };
  }
}
