import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initSync, WasmReader } from "@contentauth/c2pa-wasm";

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

/**
 * The file's C2PA validation state with c2pa-rs, trusting only `anchorsPem`; no manifest or a broken one is
 * `Invalid`. `signerSerial`: the serial number (decimal) of the certificate that signed the active manifest.
 */
export async function c2paState(bytes: Uint8Array, format: string, anchorsPem: string): Promise<{ state: string; failures: string[]; signerSerial?: string }> {
  initC2pa();
  try {
    const reader = await WasmReader.fromBytes(format, bytes, JSON.stringify({ trust: { trust_anchors: anchorsPem }, verify: { verify_trust: true } }));
    const store = reader.manifestStore() as {
      validation_state?: string;
      validation_results?: { activeManifest?: { failure?: { code: string }[] } };
      active_manifest?: string;
      manifests?: Record<string, { signature_info?: { cert_serial_number?: string } }>;
    };
    return {
      state: store.validation_state ?? "Invalid",
      failures: (store.validation_results?.activeManifest?.failure ?? []).map((entry) => entry.code),
      signerSerial: store.manifests?.[store.active_manifest ?? ""]?.signature_info?.cert_serial_number,
    };
  } catch (error) {
    return { state: "Invalid", failures: [String((error as Error).message ?? error).slice(0, 200)] };
  }
}
