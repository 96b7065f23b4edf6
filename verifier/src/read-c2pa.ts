import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initSync, WasmReader } from "@contentauth/c2pa-wasm";
import { decode, decodeSequence, Tag } from "cbor2";
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

/** The boxes of a JUMBF superbox's payload (ISO/IEC 19566-5): each a 4-byte length, a 4-byte type and its content. */
function* boxes(bytes: Uint8Array): Generator<{ type: string; content: Uint8Array }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    if (length < 8 || at + length > bytes.length) return;
    yield { type: new TextDecoder().decode(bytes.subarray(at + 4, at + 8)), content: bytes.subarray(at + 8, at + length) };
    at += length;
  }
}

/** COSE's x5chain header (RFC 9360): one certificate, or an array of them, the signer's first. */
const X5CHAIN = 33;

/** A superbox's label: its description box (`jumd`) holds a 16-byte type, a toggles byte, then the label up to a NUL. */
function label(superbox: Uint8Array): string | null {
  const [description] = boxes(superbox);
  if (description?.type !== "jumd" || description.content.length < 17) return null;
  const text = description.content.subarray(17);
  const end = text.indexOf(0);
  return new TextDecoder().decode(end === -1 ? text : text.subarray(0, end));
}

/** The superbox labelled `name` among the superboxes of `parent`. */
const child = (parent: Uint8Array, name: string) => [...boxes(parent)].find((box) => box.type === "jumb" && label(box.content) === name)?.content;

/** The COSE_Sign1 (CBOR) of manifest `manifestLabel` in a manifest store's JUMBF (`c2pa` → the manifest → `c2pa.signature`). */
function signatureCbor(store: Uint8Array, manifestLabel: string): Uint8Array | null {
  const root = [...boxes(store)].find((box) => box.type === "jumb" && label(box.content) === "c2pa")?.content;
  const manifest = root && child(root, manifestLabel);
  const signature = manifest && child(manifest, "c2pa.signature");
  return (signature && [...boxes(signature)].find((box) => box.type === "cbor")?.content) ?? null;
}

/**
 * The certificate (DER) that signed manifest `manifestLabel`: the first of its COSE_Sign1's x5chain, as c2pa-rs
 * validated the signature with it. c2pa-rs gives the manifest store's JUMBF for the signature's URI; its
 * `c2pa.signature` box holds the COSE_Sign1 in CBOR (then padding). null when absent.
 */
function signerCertificate(reader: WasmReader, manifestLabel: string | undefined): Uint8Array | null {
  try {
    if (manifestLabel === undefined) return null;
    const cbor = signatureCbor(reader.resourceToBytes(`self#jumbf=/c2pa/${manifestLabel}/c2pa.signature`), manifestLabel);
    if (!cbor) return null;
    const [decoded] = decodeSequence(cbor);
    const sign1 = (decoded instanceof Tag ? decoded.contents : decoded) as [Uint8Array, Map<number, unknown>];
    const headers = [decode(sign1[0]) as unknown, sign1[1]];
    const chain = headers.map((header) => (header instanceof Map ? header.get(X5CHAIN) : undefined)).find((value) => value !== undefined);
    const first = Array.isArray(chain) ? chain[0] : chain;
    return first instanceof Uint8Array ? new Uint8Array(first) : null;
  } catch {
    return null;
  }
}

/**
 * The file's C2PA reading with c2pa-rs, trusting only `anchorsPem`: its validation state (no manifest or a
 * broken one is `Invalid`), the active manifest's failures, its `com.proofseal.capture` assertion, and the
 * serial number (decimal) and the certificate (DER) that signed it.
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
      signerCertificate: signerCertificate(reader, store.active_manifest),
    };
  } catch (error) {
    return {
      state: "Invalid",
      failures: [String((error as Error).message ?? error).slice(0, 200)],
      capture: null,
      signerSerial: null,
      signerCertificate: null,
    };
  }
}
