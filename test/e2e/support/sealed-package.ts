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

export type SealedPackage = Awaited<ReturnType<typeof sealedPackage>>;

/**
 * Seals the shots (by default a JPEG, a PNG and an MP4) on the running stack and downloads the proof's package: the
 * ZIP and its unzipped folder. A failure carries the stack's last output (what the Worker and the sealer said).
 */
export async function sealedPackage(stack: Stack, mode: "test" | "live" = "test", shots = SHOTS) {
  try {
    return await sealed(stack, mode, shots);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${stack.output().slice(-4000)}`);
  }
}

async function sealed(stack: Stack, mode: "test" | "live", shots: typeof SHOTS) {
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
  return { proof, ...(await downloadedPackage(proof.package_url)) };
}

/** A proof's package downloaded and unzipped: the ZIP and its folder. */
export async function downloadedPackage(url: string) {
  const dir = mkdtempSync(join(tmpdir(), "package-"));
  const zip = join(dir, "proof.zip");
  writeFileSync(zip, Buffer.from(await (await fetch(url)).arrayBuffer()));
  const folder = join(dir, "unzipped");
  execFileSync("unzip", ["-q", zip, "-d", folder]);
  return { zip, folder };
}

/**
 * The sealed proof's package as a court receives it once the sweeps have run: downloaded again when the public
 * JSON names its sealed report and, with `evidenceRecord`, its evidence record's first archive timestamp.
 */
export async function packageOnceReady(stack: Stack, sealed: SealedPackage, wait: { evidenceRecord: boolean; timeoutMs: number }): Promise<SealedPackage> {
  const deadline = Date.now() + wait.timeoutMs;
  const ready = (body: { evidence_record?: { archive_timestamps?: number }; report?: unknown }) =>
    !!body.report && (!wait.evidenceRecord || !!body.evidence_record?.archive_timestamps);
  while (!ready((await request(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}`)).body)) {
    const missing = wait.evidenceRecord ? "evidence record or report" : "report";
    if (Date.now() > deadline) throw new Error(`no ${missing} for ${sealed.proof.id}:\n${stack.output().slice(-3000)}`);
    await new Promise((done) => setTimeout(done, 500));
  }
  return { ...sealed, ...(await downloadedPackage(sealed.proof.package_url)) };
}

type TrustAnchor = { kind: string; mode: string; status: string; sha256: string; pem: string };

/**
 * The current roots of a mode as GET /v1/public/trust-anchors publishes them (obtained outside any package): the
 * timestamp authority's, the seal's, and `pins`, the arguments that pin both for `proof-verify`.
 */
export async function publishedRoots(stack: Stack, mode: "test" | "live") {
  const anchors = (await request(`${stack.baseUrl}/v1/public/trust-anchors`)).body.data as TrustAnchor[];
  const current = (kind: string) => anchors.find((anchor) => anchor.kind === kind && anchor.mode === mode && anchor.status === "current")!;
  const tsa = current("timestamp_authority");
  const seal = current("c2pa");
  return { tsa, seal, pins: ["--tsa-root-sha256", tsa.sha256, "--service-root-sha256", seal.sha256] };
}
