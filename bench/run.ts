/**
 * `npm run bench`: sealing speed, as ratios to baselines measured in the same run on the same machine.
 *   - end to end: completion of a capture of 10 photos of 4 MB (test mode) until the proof is sealed;
 *   - the sealer alone: throughput of one job of the same 10 files, in MB/s;
 *   - baselines: SHA-256 of the same 40 MB, and a bare C2PA sign of one 4 MB file;
 *   - the API: p50 of an authenticated read and a creation as ratios to /health (bench/api.ts).
 */
import { createHash, X509Certificate } from "node:crypto";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startStack } from "../test/e2e/support/stack.ts";
import { captureOverHttp, waitForProof } from "../test/e2e/support/capture.ts";
import { request } from "../test/e2e/support/http.ts";
import { ensureLocalPki } from "../sealer/src/pki/ensure-local-pki.ts";
import { loadSigningKey } from "../sealer/src/c2pa/cose.ts";
import { signWithC2pa, initC2pa } from "../sealer/src/c2pa/c2pa.ts";
import { simulatedAuthority } from "../sealer/src/tsa/simulated-authority.ts";
import { crlSource } from "../sealer/src/revocation/crl-source.ts";
import { runSealJob } from "../sealer/src/seal-job.ts";
import { benchApi, printApiBench, type ApiBench } from "./api.ts";
import type { SealJob } from "../shared/sealer-protocol.ts";

const root = resolve(import.meta.dirname, "..");
const PHOTOS = 10;
const PHOTO_BYTES = 4 * 1024 * 1024;

/** A real JPEG grown to `size` bytes with APP15 segments (what a camera's metadata-heavy file looks like). */
function photoOfSize(size: number, seed: number): Buffer {
  const base = readFileSync(join(root, "sealer/test/fixtures/photo.jpg"));
  const segments: Buffer[] = [];
  let total = base.length;
  while (total < size) {
    const length = Math.min(65533, size - total - 4);
    if (length < 16) break;
    const segment = Buffer.alloc(length + 4, seed & 0xff);
    segment.writeUInt16BE(0xffef, 0);
    segment.writeUInt16BE(length + 2, 2);
    segments.push(segment);
    total += segment.length;
  }
  return Buffer.concat([base.subarray(0, 2), ...segments, base.subarray(2)]);
}

const time = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
};

const photos = Array.from({ length: PHOTOS }, (_, i) => photoOfSize(PHOTO_BYTES, i));
const totalMb = photos.reduce((sum, p) => sum + p.length, 0) / 1024 / 1024;
const pki = ensureLocalPki(join(root, ".local/bench-pki"));
const pem = (name: string) => readFileSync(join(pki, name), "utf8");
const key = loadSigningKey(pem("c2pa-signer.pk8"));
const chainDer = [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)];
const ACTIONS = [{ label: "c2pa.actions", data: { actions: [{ action: "c2pa.created", digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture" }] } }];
initC2pa();
await signWithC2pa(new Uint8Array(photos[0]!), { title: "warm-up", format: "image/jpeg", assertions: ACTIONS }, { key, chainDer, timestamp: null });

const sha = await time(async () => {
  for (const photo of photos) createHash("sha256").update(photo).digest("hex");
});
const bareSign = await time(() => signWithC2pa(new Uint8Array(photos[0]!), { title: "bench", format: "image/jpeg", assertions: ACTIONS }, { key, chainDer, timestamp: null }));

const storage = createServer(async (req, res) => {
  if (req.method === "GET") return res.writeHead(200).end(photos[Number(req.url?.split("/").pop())]);
  for await (const _chunk of req);
  res.writeHead(200).end();
});
await new Promise<void>((done) => storage.listen(0, "127.0.0.1", done));
const base = `http://127.0.0.1:${(storage.address() as { port: number }).port}`;
const job: SealJob = {
  proof: { id: "prf_bench", mode: "test", external_reference: "bench", party: "provider", stage: null, category: null, location_reference: null, session_id: "cps_bench", compare_to: null, template_sha256: "0".repeat(64) },
  files: photos.map((photo, i) => ({
    id: `med_${i}`,
    step_id: "photos",
    kind: "photo",
    content_type: "image/jpeg",
    size: photo.length,
    sha256: createHash("sha256").update(photo).digest("hex"),
    captured_at: new Date().toISOString(),
    capture_context: null,
    source: { url: `${base}/src/${i}` },
    destination: { url: `${base}/dst/${i}`, method: "PUT", headers: {} },
    discard: { url: `${base}/dst/${i}`, method: "DELETE", headers: {} },
  })),
  // Far enough that the bench measures sealing, not the abort.
  deadline: new Date(Date.now() + 30 * 60_000).toISOString(),
};
const sealer = await time(() => runSealJob({ key, chainDer, trustAnchorPem: pem("c2pa-root.pem"), authority: simulatedAuthority(pki, "tsa-test", "Simulated"), crls: crlSource({ localPkiDir: pki }) }, job));
storage.close();
if (sealer.result.status !== "sealed") throw new Error(`sealer bench failed: ${JSON.stringify(sealer.result)}`);

const stack = await startStack();
let endToEnd: number;
let api: ApiBench;
try {
  await request(`${stack.baseUrl}/health`);
  const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
    token: stack.testKey,
    body: { name: "bench", welcome: { title: "Bench" }, steps: [{ id: "photos", label: "Photos", instruction: "Bench", max_count: PHOTOS }] },
  });
  const { completed } = await captureOverHttp(
    stack,
    stack.testKey,
    { external_reference: `bench-${Date.now()}`, party: "provider", template_id: template.body.id },
    photos.map((bytes, i) => ({ file: `bench-${i}.jpg`, type: "image/jpeg", bytes })),
  );
  const started = performance.now();
  const proof = await waitForProof(stack, stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 120_000);
  endToEnd = performance.now() - started;
  if (proof.status !== "sealed") throw new Error(`end-to-end proof ${proof.status}: ${JSON.stringify(proof.failure)}`);
  api = await benchApi(stack);
} finally {
  await stack.stop();
}

const rows = [
  ["baseline: SHA-256 of 40 MB", sha.ms],
  ["baseline: bare C2PA sign of one 4 MB JPEG", bareSign.ms],
  ["sealer: one job of 10 × 4 MB (verify, sign, timestamp)", sealer.ms],
  ["end to end: completion → sealed, 10 × 4 MB", endToEnd],
] as const;
console.log(`\nSealing benchmark (${PHOTOS} photos, ${totalMb.toFixed(1)} MB)\n`);
for (const [name, ms] of rows) console.log(`${name.padEnd(58)} ${ms.toFixed(0).padStart(7)} ms`);
console.log(`\nsealer throughput                                          ${(totalMb / (sealer.ms / 1000)).toFixed(1)} MB/s`);
console.log(`sealer job / SHA-256 baseline                              ${(sealer.ms / sha.ms).toFixed(1)} ×`);
console.log(`sealer job / (10 × bare C2PA sign)                          ${(sealer.ms / (10 * bareSign.ms)).toFixed(2)} ×`);
console.log(`end to end / sealer job                                    ${(endToEnd / sealer.ms).toFixed(2)} ×`);
printApiBench(api);
