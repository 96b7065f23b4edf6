/**
 * The load section of `npm run bench` (issue 31 point 6): N concurrent captures of 3 photos through a
 * `npm run dev` stack, then how fast they are sealed: proofs sealed per second (first completion to last
 * seal) and each proof's completion → sealed time, p50 and p95, from the proofs' own `created_at` and
 * `sealed_at`. The local sealing consumer runs as many proofs at once as production's configuration allows
 * (wrangler.toml: 10). `npm run bench` runs it last; `npx node bench/load-captures.ts` alone, on a stack of
 * its own. BENCH_LOAD_CAPTURES sets N (default 20).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "../test/e2e/support/stack.ts";
import { request } from "../test/e2e/support/http.ts";
import { captureOverHttp, waitForProof } from "../test/e2e/support/capture.ts";

const CAPTURES = Number(process.env.BENCH_LOAD_CAPTURES ?? 20);
const PHOTOS_PER_CAPTURE = 3;

const root = resolve(import.meta.dirname, "..");
const base = readFileSync(join(root, "sealer/test/fixtures/photo.jpg"));

/** The fixture JPEG made distinct by a comment segment, so that no photo repeats another (no "sealed before" look-ups skew it). */
function distinctPhoto(seed: string): Buffer {
  const text = Buffer.from(`load-bench ${seed}`);
  const segment = Buffer.alloc(text.length + 4);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(text.length + 2, 2);
  text.copy(segment, 4);
  return Buffer.concat([base.subarray(0, 2), segment, base.subarray(2)]);
}

export interface LoadBench {
  captures: number;
  sealingAtOnce: number;
  proofsPerSecond: number;
  completionToSealedMs: { p50: number; p95: number; max: number };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** What the sealing queue's consumer may run at once in production (wrangler.toml): batch size × concurrency. */
function productionSealingConcurrency(): number {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const consumer = /\[\[env\.production\.queues\.consumers\]\]\s*\nqueue = "proof-sealing"\n([^[]*)/.exec(toml)?.[1] ?? "";
  const setting = (name: string) => Number(new RegExp(`^${name} = (\\d+)$`, "m").exec(consumer)?.[1] ?? 1);
  return setting("max_batch_size") * setting("max_concurrency");
}

export async function benchLoad(stack: Stack, captures = CAPTURES): Promise<LoadBench> {
  const key = await request(`${stack.baseUrl}/admin/v1/organizations/${stack.organizationId}/api-keys`, {
    token: stack.adminToken,
    body: { mode: "test", rate_limit_per_minute: 100_000 },
  });
  if (key.status !== 201) throw new Error(`load bench key: ${JSON.stringify(key.body)}`);
  const token: string = key.body.key;
  const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
    token,
    body: { name: "load", welcome: { title: "Load" }, steps: [{ id: "photos", label: "Photos", instruction: "Load", max_count: PHOTOS_PER_CAPTURE }] },
  });
  if (template.status !== 201) throw new Error(`load bench template: ${JSON.stringify(template.body)}`);

  // All N captures at once, each completed as soon as its photos are up, as N phones would.
  const run = crypto.randomUUID();
  const proofs = await Promise.all(
    Array.from({ length: captures }, async (_, n) => {
      const { completed } = await captureOverHttp(
        stack,
        token,
        { external_reference: `load-${run}-${n}`, party: "provider", template_id: template.body.id },
        Array.from({ length: PHOTOS_PER_CAPTURE }, (_, photo) => ({ file: "photo.jpg", type: "image/jpeg", bytes: distinctPhoto(`${run}-${n}-${photo}`) })),
      );
      if (completed.status !== 200) throw new Error(`load bench completion: ${JSON.stringify(completed.body)}`);
      const proof = await waitForProof(stack, token, completed.body.proof_id, (p) => p.status !== "pending", 15 * 60_000, 500);
      if (proof.status !== "sealed") throw new Error(`load bench proof ${proof.status}: ${JSON.stringify(proof.failure)}`);
      return { completedAt: Date.parse(proof.created_at), sealedAt: Date.parse(proof.sealed_at) };
    }),
  );
  const durations = proofs.map((proof) => proof.sealedAt - proof.completedAt);
  const spanMs = Math.max(...proofs.map((proof) => proof.sealedAt)) - Math.min(...proofs.map((proof) => proof.completedAt));
  return {
    captures,
    sealingAtOnce: productionSealingConcurrency(),
    proofsPerSecond: captures / (spanMs / 1000),
    completionToSealedMs: { p50: percentile(durations, 50), p95: percentile(durations, 95), max: Math.max(...durations) },
  };
}

export function printLoadBench(result: LoadBench): void {
  const row = (name: string, value: string) => console.log(`${name.padEnd(58)} ${value}`);
  console.log(
    `\nLoad: ${result.captures} concurrent captures of ${PHOTOS_PER_CAPTURE} photos (sealing ${result.sealingAtOnce} proofs at once, as in production)\n`,
  );
  row("proofs sealed per second (first completion → last seal)", result.proofsPerSecond.toFixed(2).padStart(7));
  row("completion → sealed, p50", `${result.completionToSealedMs.p50.toFixed(0).padStart(7)} ms`);
  row("completion → sealed, p95", `${result.completionToSealedMs.p95.toFixed(0).padStart(7)} ms`);
  row("completion → sealed, slowest", `${result.completionToSealedMs.max.toFixed(0).padStart(7)} ms`);
}

if (import.meta.main) {
  const stack = await startStack();
  try {
    printLoadBench(await benchLoad(stack));
  } catch (error) {
    console.error(stack.output().slice(-4000));
    throw error;
  } finally {
    await stack.stop();
  }
}
