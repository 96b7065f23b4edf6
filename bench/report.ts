/**
 * The report half of `npm run bench` (docs/adr/0044): the sealed PDF report of the bench's 10-photo proof, made
 * as the sealer's `POST /report` makes it (photos fetched from storage in another process and resized, the
 * layout, the PAdES seal with its two timestamps), set against that proof's sealer job measured in the same
 * run; and its size. Targets: at most 0.5 × the job, at most 3 MB.
 */
import { fork } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ensureLocalPki } from "../sealer/src/pki/ensure-local-pki.ts";
import { crlSource } from "../sealer/src/revocation/crl-source.ts";
import { makeReport, type ReportTimings } from "../sealer/src/report/make-report.ts";
import { sealIdentity } from "../sealer/src/seal/seal-identity.ts";
import { simulatedAuthority } from "../sealer/src/tsa/simulated-authority.ts";
import type { ReportJob } from "../shared/report-protocol.ts";
import { benchPhotos, PHOTOS } from "./photos.ts";
import { median } from "./sealing.ts";

const RUNS = 3;
const root = resolve(import.meta.dirname, "..");
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

export interface ReportBench {
  ms: number;
  bytes: number;
  pages: number;
  timings: ReportTimings;
  /** The report's time over the same run's sealer job of the same photos. */
  ratio: number;
}

/** The bench proof's report job: its ten photos read from the storage stand-in, as the Worker would send it. */
function reportJob(base: string): ReportJob {
  const photos = benchPhotos();
  const sealedAt = new Date().toISOString();
  return {
    kind: "proof",
    language: "en",
    organization: "Bench organization",
    report_url: "http://localhost:8787/v1/public/proofs/prf_bench/report.pdf",
    verification_url: "http://localhost:8787/p/prf_bench",
    proofs: [
      {
        id: "prf_bench",
        mode: "test",
        side: "single",
        external_reference: "bench",
        party: "provider",
        stage: null,
        category: null,
        location_reference: null,
        verdict: { code: "verified", status: "valid", sentence: "Verified, but a TEST proof: sealed and intact; no legal value." },
        sealed_at: sealedAt,
        manifest_sha256: sha256("manifest"),
        timestamp: { gen_time: sealedAt, qualified: false, authority: "Simulated", serial: "01", policy: "1.2.3" },
        seal: null,
        roots: { timestamp_authority_root_sha256: null, c2pa_root_sha256: null },
        claims: { proven: [], reported_by_device: ["The device's time of each shot."], not_proven: ["Anything at all: this is a test proof."] },
        verification_url: "http://localhost:8787/p/prf_bench",
        package_url: "http://localhost:8787/v1/public/proofs/prf_bench/package",
        attachments: { manifest_json_base64: btoa("{}"), manifest_p7s_base64: null, proof_tsr_base64: btoa("tsr") },
        files: photos.map((photo, i) => ({
          id: `med_${i}`,
          step_id: "photos",
          step_label: "Photos",
          number: i + 1,
          position: i + 1,
          kind: "photo" as const,
          content_type: "image/jpeg",
          size: photo.length,
          sha256: sha256(photo),
          signed_sha256: sha256(`signed ${i}`),
          received_at: sealedAt,
          reported: { method: "camera" as const, device_time: sealedAt, geolocation: null },
          clock_offset_ms: 0,
          signals: [],
          picture: { url: `${base}/src/${i}` },
        })),
      },
    ],
    deadline: new Date(Date.now() + 10 * 60_000).toISOString(),
  };
}

/** Median of RUNS reports after one not counted (fonts and sharp loaded), storage in a process of its own. */
export async function benchReport(sealerJobMs: number): Promise<ReportBench> {
  const pki = ensureLocalPki(join(root, ".local/bench-pki"));
  const pem = (name: string) => readFileSync(join(pki, name), "utf8");
  const context = {
    seal: sealIdentity(pem("proof-seal.pk8"), [new Uint8Array(new X509Certificate(pem("proof-seal.pem")).raw)]),
    trustAnchorPem: pem("c2pa-root.pem"),
    authority: simulatedAuthority(pki, "tsa-test", "Simulated"),
    crls: crlSource({ localPkiDir: pki }),
  };
  const storage = fork(join(import.meta.dirname, "storage-stand-in.ts"), { stdio: "inherit" });
  const port = await new Promise<number>((done) => storage.once("message", (message: { port: number }) => done(message.port)));
  try {
    const runs: { ms: number; pdf: Uint8Array; timings: ReportTimings }[] = [];
    for (let i = -1; i < RUNS; i++) {
      const job = reportJob(`http://127.0.0.1:${port}`);
      const started = performance.now();
      const { pdf, timings } = await makeReport(context, job);
      if (i >= 0) runs.push({ ms: performance.now() - started, pdf, timings });
    }
    const ms = median(runs.map((run) => run.ms));
    const run = runs.find((candidate) => candidate.ms === ms)!;
    const pages = (new TextDecoder("latin1").decode(run.pdf).match(/\/Type \/Page\b/g) ?? []).length;
    return { ms, bytes: run.pdf.length, pages, timings: run.timings, ratio: ms / sealerJobMs };
  } finally {
    storage.kill();
  }
}

const row = (name: string, value: string) => console.log(`${name.padEnd(58)} ${value}`);

export function printReportBench(report: ReportBench): void {
  console.log(`\nReport benchmark (the sealed PDF report of the ${PHOTOS}-photo proof; median of ${RUNS})\n`);
  row("report: photos fetched and resized", `${report.timings.pictures_ms.toFixed(0).padStart(7)} ms`);
  row("report: layout (pdfkit)", `${report.timings.layout_ms.toFixed(0).padStart(7)} ms`);
  row("report: PAdES seal (signature, DSS, document timestamp)", `${report.timings.seal_ms.toFixed(0).padStart(7)} ms`);
  row("report: whole", `${report.ms.toFixed(0).padStart(7)} ms`);
  row("report / that proof's sealer job", `${report.ratio.toFixed(2)} × (target ≤ 0.5 ×)`);
  row("report size", `${(report.bytes / 1024 / 1024).toFixed(2)} MB, ${report.pages} pages (target ≤ 3 MB)`);
}
