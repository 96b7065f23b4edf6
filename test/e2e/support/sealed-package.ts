import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captureOverHttp, waitForProof } from "./capture.ts";
import { request } from "./http.ts";
import type { Stack } from "./stack.ts";

/** The default shots: a JPEG, a PNG and an MP4. */
const SHOTS: Parameters<typeof captureOverHttp>[3] = [
  { file: "photo.jpg", type: "image/jpeg" },
  { file: "photo.png", type: "image/png" },
  { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
];

/** Seals the shots (by default a JPEG, a PNG and an MP4) on the running stack and downloads the proof's package: the ZIP and its unzipped folder. */
export async function sealedPackage(stack: Stack, mode: "test" | "live" = "test", shots = SHOTS) {
  const key = mode === "test" ? stack.testKey : stack.liveKey;
  const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
    token: key,
    body: {
      name: "Package",
      welcome: { title: "Hello" },
      steps: [
        { id: "photos", label: "Photos", instruction: "Every side", max_count: 5 },
        { id: "walkaround", label: "Video", instruction: "Walk around", kind: "video", max_count: 1 },
      ],
    },
  });
  const { completed } = await captureOverHttp(
    stack,
    key,
    { external_reference: `package-${Date.now()}`, party: "provider", stage: "checkin", template_id: template.body.id },
    shots,
  );
  if (completed.status !== 200) throw new Error(`complete: ${JSON.stringify(completed.body)}`);
  const proof = await waitForProof(stack, key, completed.body.proof_id, (p) => p.status !== "pending", 90_000);
  if (proof.status !== "sealed") throw new Error(`proof ${proof.id}: ${proof.status}`);
  const dir = mkdtempSync(join(tmpdir(), "package-"));
  const zip = join(dir, "proof.zip");
  writeFileSync(zip, Buffer.from(await (await fetch(proof.package_url)).arrayBuffer()));
  const folder = join(dir, "unzipped");
  execFileSync("unzip", ["-q", zip, "-d", folder]);
  return { proof, zip, folder };
}
