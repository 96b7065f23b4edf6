/**
 * The sealing half of `npm run bench`: baselines in this process, one sealer job run in a sealer process
 * of its own (bench/sealer-process.ts, the container's V8 options) against storage in another, and proofs
 * sealed end to end by a `npm run dev` stack, each with where its time went.
 */
import { fork } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Stack } from "../test/e2e/support/stack.ts";
import { captureOverHttp, waitForProof } from "../test/e2e/support/capture.ts";
import { request } from "../test/e2e/support/http.ts";
import { ensureLocalPki } from "../sealer/src/pki/ensure-local-pki.ts";
import { loadSigningKey } from "../sealer/src/c2pa/cose.ts";
import { signWithC2pa, initC2pa } from "../sealer/src/c2pa/c2pa.ts";
import { SEALER_NODE_FLAGS } from "../sealer/src/node-flags.ts";
import type { JobRun } from "./sealer-process.ts";
import type { SealJob, SealTimings } from "../shared/sealer-protocol.ts";
import { benchPhotos, PHOTOS } from "./photos.ts";
import { stackStorageJobs } from "./stack-storage.ts";

const root = resolve(import.meta.dirname, "..");
/** Runs of each measure; the median is reported (the machine is shared and noisy). */
const RUNS = 3;
const JOB_RUNS = 5;

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const time = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
};

/** Where one proof's time went: the sealer's phases, and end to end the Worker's steps around them. */
export interface Breakdown {
  queueHandoverMs?: number;
  sealerExchangeMs?: number;
  storingMs?: number;
  sealer: SealTimings;
}

export interface SealingBench {
  shaMs: number;
  bareSignMs: number;
  /**
   * `cpuMs`: the CPU time of every thread of the bench's sealer process during the job (storage excluded);
   * `tenSignsMs`: ten bare signs of the same photos in a row, measured just before each job; `ratio`:
   * the median of each run's job / ten bare signs (wall time: the target); `cpuRatio`: the same with CPU time
   * (the job's, all threads of the sealer process; the signs', this process's), less sensitive to the load.
   */
  job: { ms: number; cpuMs: number; tenSignsMs: number; ratio: number; cpuRatio: number; breakdown: Breakdown };
  endToEnd: { ms: number; breakdown: Breakdown };
  /** The same job against the end-to-end stack's own storage (local R2 behind the Worker's signed route). */
  stackJob: { ms: number; breakdown: Breakdown };
}

const photos = benchPhotos();
export const totalMb = photos.reduce((sum, photo) => sum + photo.length, 0) / 1024 / 1024;
const ACTIONS = [
  {
    label: "c2pa.actions",
    data: { actions: [{ action: "c2pa.created", digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture" }] },
  },
];

function signingIdentity() {
  const pki = ensureLocalPki(join(root, ".local/bench-pki"));
  const pem = (name: string) => readFileSync(join(pki, name), "utf8");
  return { pki, pem, key: loadSigningKey(pem("c2pa-signer.pk8")), chainDer: [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)] };
}

/** A bare C2PA sign of one photo on this thread: no timestamp, no I/O, no check. */
const bareSign = (identity: ReturnType<typeof signingIdentity>, photo: Buffer) =>
  signWithC2pa(
    new Uint8Array(photo),
    { title: "bench", format: "image/jpeg", assertions: ACTIONS },
    { key: identity.key, chainDer: identity.chainDer, timestamp: null },
  );

/** SHA-256 of the 40 MB, and a bare C2PA sign of one photo: the median of several. */
async function baselines(identity: ReturnType<typeof signingIdentity>) {
  initC2pa();
  await bareSign(identity, photos[0]!);
  const sha: number[] = [];
  const sign: number[] = [];
  for (let i = 0; i < 5; i++) {
    sha.push(
      (
        await time(async () => {
          for (const photo of photos) createHash("sha256").update(photo).digest("hex");
        })
      ).ms,
    );
    sign.push((await time(() => bareSign(identity, photos[0]!))).ms);
  }
  return { shaMs: median(sha), bareSignMs: median(sign) };
}

/** Storage for the job in a process of its own (bench/storage-stand-in.ts). */
async function startStorage() {
  const child = fork(join(import.meta.dirname, "storage-stand-in.ts"), { stdio: "inherit" });
  const port = await new Promise<number>((done) => child.once("message", (message: { port: number }) => done(message.port)));
  return { base: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

function benchJob(base: string): SealJob {
  return {
    proof: {
      id: "prf_bench",
      organization_id: "org_bench",
      mode: "test",
      external_reference: "bench",
      party: "provider",
      stage: null,
      category: null,
      location_reference: null,
      session_id: "cps_bench",
      compare_to: null,
      compare_to_manifest_sha256: null,
      template_sha256: "0".repeat(64),
    },
    files: photos.map((photo, i) => ({
      id: `med_${i}`,
      step_id: "photos",
      position: i + 1,
      kind: "photo",
      content_type: "image/jpeg",
      size: photo.length,
      sha256: createHash("sha256").update(photo).digest("hex"),
      captured_at: new Date().toISOString(),
      capture_context: null,
      source: { url: `${base}/src/${i}` },
      destination: { url: `${base}/dst/${i}`, method: "PUT", headers: {} },
      discard: { url: `${base}/dst/${i}`, method: "DELETE", headers: {} },
      // As the Worker asks for every photo (the verification page shows them).
      thumbnail: {
        destination: { url: `${base}/thumbnails/${i}`, method: "PUT", headers: {} },
        discard: { url: `${base}/thumbnails/${i}`, method: "DELETE", headers: {} },
      },
    })),
    // Far enough that the bench measures sealing, not the abort.
    deadline: new Date(Date.now() + 30 * 60_000).toISOString(),
  };
}

/** The run whose total is the median, with its breakdown. */
const medianRun = <T extends { ms: number }>(runs: T[]) => runs.find((run) => run.ms === median(runs.map((r) => r.ms)))!;

/** The bench's sealer process (bench/sealer-process.ts), started with the sealer's V8 options. */
async function startSealerProcess(identity: ReturnType<typeof signingIdentity>) {
  const child = fork(join(import.meta.dirname, "sealer-process.ts"), [identity.pki], { stdio: "inherit", execArgv: SEALER_NODE_FLAGS });
  await new Promise((ready) => child.once("message", ready));
  const run = (job: SealJob) =>
    new Promise<JobRun>((done, fail) => {
      const exited = (code: number | null) => fail(new Error(`the bench's sealer process exited (${code})`));
      child.once("exit", exited);
      child.once("message", (answer: JobRun) => {
        child.off("exit", exited);
        done(answer);
      });
      child.send(job);
    });
  return { run, stop: () => child.kill() };
}

/** Sealer jobs in the bench's sealer process, each made by `nextJob` (storage must hold the bench photos). */
async function sealerJobs(identity: ReturnType<typeof signingIdentity>, nextJob: () => Promise<SealJob>) {
  const sealer = await startSealerProcess(identity);
  const runs: { ms: number; cpuMs: number; tenSignsMs: number; tenSignsCpuMs: number; breakdown: Breakdown }[] = [];
  try {
    // One run first, not counted: a sealer serves jobs warm (its threads and c2pa-rs loaded at start).
    for (let i = -1; i < JOB_RUNS; i++) {
      // The baseline of each run just before it, so that the ratio holds while the shared machine's speed drifts.
      const cpuBefore = process.cpuUsage();
      const tenSigns = await time(async () => {
        for (const photo of photos) await bareSign(identity, photo);
      });
      const { user, system } = process.cpuUsage(cpuBefore);
      const { ms, cpuMs, result } = await sealer.run(await nextJob());
      if (result.status !== "sealed" || !result.timings) throw new Error(`sealer bench failed: ${JSON.stringify(result)}`);
      if (i >= 0) runs.push({ ms, cpuMs, tenSignsMs: tenSigns.ms, tenSignsCpuMs: (user + system) / 1000, breakdown: { sealer: result.timings } });
    }
  } finally {
    sealer.stop();
  }
  return {
    ...medianRun(runs),
    tenSignsMs: median(runs.map((run) => run.tenSignsMs)),
    ratio: median(runs.map((run) => run.ms / run.tenSignsMs)),
    cpuRatio: median(runs.map((run) => run.cpuMs / run.tenSignsCpuMs)),
  };
}

async function sealerJob(identity: ReturnType<typeof signingIdentity>) {
  const storage = await startStorage();
  try {
    return await sealerJobs(identity, async () => benchJob(storage.base));
  } finally {
    storage.stop();
  }
}

/** The same sealer job against the stack's own storage (bench/stack-storage.ts), to set end to end against. */
export async function benchStackStorageJob(stack: Stack) {
  const nextJob = await stackStorageJobs(stack);
  const { ms, breakdown } = await sealerJobs(signingIdentity(), () => nextJob(benchJob("http://unused.invalid")));
  return { ms, breakdown };
}

/** The Worker's `sealing times` log line of a proof (src/sealing/sealing-times.ts), which reaches the stack's output soon after the proof reads sealed. */
async function workerTimes(stack: Stack, proofId: string): Promise<Breakdown> {
  const find = () =>
    stack
      .output()
      .split("\n")
      .find((candidate) => candidate.includes('"sealing times"') && candidate.includes(proofId));
  for (let waited = 0; !find() && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
  const line = find();
  if (!line) throw new Error(`no "sealing times" line for ${proofId} in the stack's output`);
  const logged = JSON.parse(line.slice(line.indexOf("{"))) as {
    queue_handover_ms: number;
    sealer_call_ms: number;
    sealer: SealTimings | null;
    storing_ms: number;
  };
  if (!logged.sealer) throw new Error("the sealer reported no timings");
  return {
    queueHandoverMs: logged.queue_handover_ms,
    sealerExchangeMs: logged.sealer_call_ms - logged.sealer.total_ms,
    storingMs: logged.storing_ms,
    sealer: logged.sealer,
  };
}

/** Completion → sealed of a capture of the ten photos, as an integrator polling the proof sees it. */
export async function benchEndToEnd(stack: Stack) {
  // A key of its own whose rate limit lets the bench poll every few milliseconds.
  const key = await request(`${stack.baseUrl}/admin/v1/organizations/${stack.organizationId}/api-keys`, {
    token: stack.adminToken,
    body: { mode: "test", rate_limit_per_minute: 100_000 },
  });
  if (key.status !== 201) throw new Error(`bench key: ${JSON.stringify(key.body)}`);
  const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
    token: key.body.key,
    body: { name: "bench", welcome: { title: "Bench" }, steps: [{ id: "photos", label: "Photos", instruction: "Bench", max_count: PHOTOS }] },
  });
  const runs: { ms: number; breakdown: Breakdown }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { completed } = await captureOverHttp(
      stack,
      key.body.key,
      { external_reference: `bench-${Date.now()}`, party: "provider", template_id: template.body.id },
      photos.map((bytes, n) => ({ file: `bench-${n}.jpg`, type: "image/jpeg", bytes })),
    );
    const started = performance.now();
    const proof = await waitForProof(stack, key.body.key, completed.body.proof_id, (p) => p.status !== "pending", 120_000, 10);
    const ms = performance.now() - started;
    if (proof.status !== "sealed") throw new Error(`end-to-end proof ${proof.status}: ${JSON.stringify(proof.failure)}`);
    runs.push({ ms, breakdown: await workerTimes(stack, proof.id) });
  }
  return medianRun(runs);
}

/** The baselines and the sealer job, in this process (before the stack starts, which would share the cores). */
export async function benchSealer(): Promise<Omit<SealingBench, "endToEnd" | "stackJob">> {
  const identity = signingIdentity();
  const { shaMs, bareSignMs } = await baselines(identity);
  return { shaMs, bareSignMs, job: await sealerJob(identity) };
}

const row = (name: string, value: string) => console.log(`${name.padEnd(58)} ${value}`);
const ms = (value: number) => `${value.toFixed(0).padStart(7)} ms`;

function printBreakdown(title: string, breakdown: Breakdown): void {
  console.log(`\n${title}\n`);
  const phase = (name: keyof SealTimings["phases"]) => {
    const figure = breakdown.sealer.phases[name];
    return figure ? `${ms(figure.wall_ms)}  (${figure.file_ms.toFixed(0)} ms summed over files)` : "      – ";
  };
  if (breakdown.queueHandoverMs !== undefined) row("  queue hand-over (completion → job sent to the sealer)", ms(breakdown.queueHandoverMs));
  if (breakdown.sealerExchangeMs !== undefined) row("  job and answer between the Worker and the sealer", ms(breakdown.sealerExchangeMs));
  row("  sealer, whole job", ms(breakdown.sealer.total_ms));
  row("    download", phase("download"));
  row("    verification", phase("verification"));
  row("    C2PA signing", phase("signing"));
  row("    timestamps", phase("timestamps"));
  row("    upload", phase("upload"));
  if (breakdown.storingMs !== undefined) row("  storing (Worker: artifacts, sealed batch)", ms(breakdown.storingMs));
  const calls = breakdown.sealer.authority_calls;
  row("  timestamp requests per proof", `${calls.proof_authority + calls.signature_authority}`.padStart(7));
  row("    to the proof's authority (the qualified one when live)", `${calls.proof_authority}`.padStart(7));
  row("    to a separate signatures' authority", `${calls.signature_authority}`.padStart(7));
}

/** The sealer's own rows: the baselines, its job, and where that job's time goes. */
export function printSealerBench(result: Omit<SealingBench, "endToEnd" | "stackJob">): void {
  console.log(`\nSealer benchmark (${PHOTOS} photos, ${totalMb.toFixed(1)} MB; medians of ${JOB_RUNS} sealer jobs)\n`);
  printSealerRows(result);
  printBreakdown("Where the time goes: the sealer job (wall time with at least one file in each phase)", result.job.breakdown);
}

function printSealerRows(result: Omit<SealingBench, "endToEnd" | "stackJob">): void {
  row("baseline: SHA-256 of 40 MB", ms(result.shaMs));
  row("baseline: bare C2PA sign of one 4 MB JPEG", ms(result.bareSignMs));
  row("baseline: ten bare signs of the 10 photos, before each job", ms(result.job.tenSignsMs));
  row("sealer: one job of 10 × 4 MB (verify, sign, timestamp)", ms(result.job.ms));
  row("sealer job CPU time, all threads", `${result.job.cpuMs.toFixed(0)} ms (${(result.job.cpuMs / result.job.ms).toFixed(2)} cores busy)`);
  row("sealer job / ten bare signs (median of each run's ratio)", `${result.job.ratio.toFixed(2)} × (target ≤ 2.0 ×)`);
  row("sealer job / ten bare signs, CPU time", `${result.job.cpuRatio.toFixed(2)} × (median of each run's ratio; no target)`);
}

export function printSealingBench(result: SealingBench): void {
  console.log(`\nSealing benchmark (${PHOTOS} photos, ${totalMb.toFixed(1)} MB; medians of ${JOB_RUNS} sealer jobs and ${RUNS} proofs end to end)\n`);
  row("baseline: SHA-256 of 40 MB", ms(result.shaMs));
  row("baseline: bare C2PA sign of one 4 MB JPEG", ms(result.bareSignMs));
  row("baseline: ten bare signs of the 10 photos, before each job", ms(result.job.tenSignsMs));
  row("sealer: one job of 10 × 4 MB (verify, sign, timestamp)", ms(result.job.ms));
  row("sealer: the same job against the stack's storage (local R2)", ms(result.stackJob.ms));
  row("end to end: completion → sealed, 10 × 4 MB", ms(result.endToEnd.ms));
  console.log("");
  row("sealer throughput", `${(totalMb / (result.job.ms / 1000)).toFixed(1)} MB/s`);
  row("sealer job CPU time, all threads", `${result.job.cpuMs.toFixed(0)} ms (${(result.job.cpuMs / result.job.ms).toFixed(2)} cores busy)`);
  row("sealer job / SHA-256 baseline", `${(result.job.ms / result.shaMs).toFixed(1)} ×`);
  row("sealer job / ten bare signs (median of each run's ratio)", `${result.job.ratio.toFixed(2)} × (target ≤ 2.0 ×)`);
  row("sealer job / ten bare signs, CPU time", `${result.job.cpuRatio.toFixed(2)} × (median of each run's ratio; no target)`);
  row("end to end / sealer job on the stack's storage", `${(result.endToEnd.ms / result.stackJob.ms).toFixed(2)} × (target ≤ 1.5 ×: what the Worker adds)`);
  row("end to end / sealer job on plain storage", `${(result.endToEnd.ms / result.job.ms).toFixed(2)} × (includes the local R2 simulation)`);
  row("end to end", `${(result.endToEnd.ms / 1000).toFixed(2)} s (target ≤ 2.0 s)`);
  printBreakdown("Where the time goes: the sealer job (wall time with at least one file in each phase)", result.job.breakdown);
  printBreakdown("Where the time goes: the sealer job against the stack's storage", result.stackJob.breakdown);
  printBreakdown("Where the time goes: end to end", result.endToEnd.breakdown);
}
