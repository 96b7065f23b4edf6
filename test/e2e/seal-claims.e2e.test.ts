import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { readC2pa } from "../../sealer/src/c2pa/c2pa.ts";

const DIGITAL_CAPTURE = "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const chosenFile = () => ({ method: "file", device_time: new Date().toISOString() });

/** Captures one file (a JPEG unless said) over HTTP and waits for its sealed proof; returns it with its signed file and the package's trust anchor. */
async function sealOne(key: string, capture: Record<string, unknown>, bytes?: Buffer, file = { name: "photo.jpg", type: "image/jpeg" }) {
  const { completed } = await captureOverHttp(stack, key, { external_reference: `claims-${Date.now()}-${Math.random()}`, party: "provider" }, [
    { file: file.name, type: file.type, bytes, capture },
  ]);
  expect(completed.status).toBe(200);
  const proof = await waitForProof(stack, key, completed.body.proof_id, (p) => p.status !== "pending");
  expect(proof.status).toBe("sealed");
  const publicProof = (await request(proof.verification_url.replace("/p/", "/v1/public/proofs/"))).body;
  const signed = Buffer.from(await (await fetch(publicProof.files[0].url)).arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), "claims-"));
  writeFileSync(join(dir, "proof.zip"), Buffer.from(await (await fetch(proof.package_url)).arrayBuffer()));
  const anchor = execFileSync("unzip", ["-p", "proof.zip", "c2pa-trust-anchor.pem"], { cwd: dir }).toString();
  const reading = await readC2pa(new Uint8Array(signed), file.type, anchor);
  const manifest = reading.activeManifest as {
    assertions: { label: string; data: { actions?: { action: string; digitalSourceType?: string }[] } & Record<string, unknown>; created?: boolean }[];
    ingredients?: { relationship: string; active_manifest?: string }[];
    signature_info?: { issuer?: string; common_name?: string };
  };
  const actions = manifest.assertions.filter((a) => a.label.startsWith("c2pa.actions")).flatMap((a) => a.data.actions ?? []);
  return { proof, publicProof, signed, anchor, reading, manifest, actions };
}

describe("what a seal claims, black-box on npm run dev with the c2pa-rs reader", () => {
  it("a file chosen with 'Choose a file' carries no digitalCapture claim; sealed again, it keeps its earlier manifest and the proof says so", async () => {
    const first = await sealOne(stack.testKey, chosenFile());
    expect(first.reading.state).toBe("Trusted");
    expect(first.actions.map((a) => a.action)).toEqual(["c2pa.opened"]);
    expect(first.actions.some((a) => a.digitalSourceType === DIGITAL_CAPTURE)).toBe(false);
    expect(first.manifest.ingredients?.map((i) => i.relationship)).toEqual(["parentOf"]);

    const again = await sealOne(stack.testKey, chosenFile(), first.signed);
    expect(again.manifest.ingredients?.[0]).toMatchObject({ relationship: "parentOf", active_manifest: expect.any(String) });
    const file = again.proof.files[0];
    expect(file.earlier_content_credentials).toMatchObject({ claim_generator: "proof-sealing-service 1", digital_source_types: [] });
    expect(file.signals.map((s: { code: string }) => s.code)).toEqual(["prior_content_credentials", "sealed_before"]);
    expect(file.signals[1].proof_id).toBe(first.proof.id);
    const published = again.publicProof.files[0];
    expect(published.earlier_content_credentials).toEqual(file.earlier_content_credentials);
    expect(published.signals.find((s: { code: string }) => s.code === "sealed_before")).toEqual({
      code: "sealed_before",
      detail: "The same bytes were sealed before, in another proof.",
    });
    expect(JSON.stringify(again.publicProof)).not.toContain(first.proof.id);
  });

  it("a camera shot is opened by the signer, named after its proof, the report gathered; the public JSON separates observed from reported", async () => {
    const reported = {
      method: "camera",
      device_time: "2001-01-01T00:00:00.000Z",
      width: 4000,
      height: 3000,
      geolocation: { latitude: 48.8566, longitude: 2.3522, accuracy_m: 0 },
    };
    const shot = await sealOne(stack.testKey, reported);
    expect(shot.reading.state).toBe("Trusted");
    expect(shot.actions.map((a) => a.action)).toEqual(["c2pa.opened"]);
    expect(JSON.stringify(shot.manifest.assertions)).not.toContain("digitalSourceType");
    const capture = shot.manifest.assertions.find((a) => a.label === "com.proofseal.capture")!;
    expect(capture.created).toBe(true);
    expect(capture.data).toMatchObject({
      proof_id: shot.proof.id,
      external_reference: shot.proof.external_reference,
      party: "provider",
      step_id: "photos",
      position: 1,
      compare_to: null,
      mode: "test",
    });
    const gathered = shot.manifest.assertions.find((a) => a.label === "com.proofseal.reported")!;
    expect(gathered.created).toBeUndefined();
    expect(gathered.data.reported_by_device).toEqual(reported);
    const file = shot.publicProof.files[0];
    expect(file.reported_by_device).toEqual({ ...reported, duration_ms: null });
    expect(file.observed).toMatchObject({
      sha256: file.sha256,
      content_type: "image/jpeg",
      capture_page_version: expect.stringMatching(/^[0-9a-f]{40}$|^unknown$/),
      decoded: { width: 320, height: 240, duration_ms: null },
    });
    expect(file.observed.clock_offset_ms).toBeGreaterThan(20 * 365 * 24 * 3600 * 1000);
    // sealed_before (from the Worker, last) depends on which test sealed the same fixture first: not checked here.
    const fromTheBytes = file.signals.map((s: { code: string }) => s.code).filter((code: string) => code !== "sealed_before");
    // Declared 4000×3000, the 320×240 fixture weighs far less than a camera's photo of that size (ADR 0041).
    expect(fromTheBytes).toEqual(["dimensions_mismatch", "device_time_far", "location_accuracy_zero", "image_smaller_than_declared"]);
    expect(shot.publicProof.claims.not_proven.map((c: { code: string }) => c.code)).toContain("camera_genuine");
  });

  it("a PNG declared as a camera shot is flagged in the signed file, the public JSON and the page", async () => {
    const shot = await sealOne(stack.testKey, { method: "camera", device_time: new Date().toISOString() }, undefined, { name: "photo.png", type: "image/png" });
    expect(shot.reading.state).toBe("Trusted");
    const capture = shot.manifest.assertions.find((a) => a.label === "com.proofseal.capture")!;
    expect(capture.data.signals).toContain("camera_shot_format_not_from_capture_page");
    const file = shot.publicProof.files[0];
    expect(file.signals.map((s: { code: string }) => s.code)).toContain("camera_shot_format_not_from_capture_page");
    const page = await (await fetch(shot.proof.verification_url, { headers: { "Accept-Language": "fr" } })).text();
    expect(page).toContain('data-code="camera_shot_format_not_from_capture_page"');
    expect(page).toContain("n&#39;est pas de ceux que produit l&#39;appareil photo de la page de capture");
  });

  it("the signer certificate of a test proof differs from a live proof's and names itself a test; neither validates under the other's anchor", async () => {
    const test = await sealOne(stack.testKey, chosenFile());
    const live = await sealOne(stack.liveKey, chosenFile());
    expect(test.manifest.signature_info?.common_name).toMatch(/TEST ONLY - NO LEGAL VALUE/);
    expect(live.manifest.signature_info?.common_name).not.toMatch(/test/i);
    expect(test.anchor).not.toBe(live.anchor);
    expect(live.reading.state).toBe("Trusted");
    expect((await readC2pa(new Uint8Array(test.signed), "image/jpeg", live.anchor)).state).not.toBe("Trusted");
    expect((await readC2pa(new Uint8Array(live.signed), "image/jpeg", test.anchor)).state).not.toBe("Trusted");
  });
});
