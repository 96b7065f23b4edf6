import { createHash } from "node:crypto";
import type { ReportFile, ReportJob, ReportLanguage, ReportProof } from "../../shared/report-protocol.ts";
import { scene } from "./scenes.ts";

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** A photo served at `${base}/report/${id}` by the storage stand-in, with the facts a report job carries. */
export async function reportPhoto(
  base: string,
  sources: Map<string, Uint8Array>,
  options: {
    id: string;
    number: number;
    position: number;
    step: string;
    seed: number;
    receivedAt: string;
    method?: "camera" | "file";
    signals?: ReportFile["signals"];
  },
): Promise<ReportFile> {
  const bytes = await scene(options.seed, 1600, 1200);
  sources.set(`/report/${options.id}`, bytes);
  return {
    id: options.id,
    step_id: options.step,
    step_label: options.step === "front" ? "Front of the car" : "Dashboard and mileage",
    number: options.number,
    position: options.position,
    kind: "photo",
    content_type: "image/jpeg",
    size: bytes.length,
    sha256: sha256(bytes),
    signed_sha256: sha256(`${options.id}-signed`),
    received_at: options.receivedAt,
    reported: { method: options.method ?? "camera", device_time: options.receivedAt, geolocation: null },
    clock_offset_ms: 1200,
    signals: options.signals ?? [],
    picture: { url: `${base}/report/${options.id}` },
  };
}

/** One proof as a report job carries it, sealed at `sealedAt`, with its files. */
export function reportProof(id: string, side: ReportProof["side"], mode: ReportProof["mode"], sealedAt: string, files: ReportFile[]): ReportProof {
  return {
    id,
    mode,
    side,
    external_reference: "LEASE-2026-0042",
    party: "provider",
    stage: side === "after" ? "return" : "handover",
    category: "car",
    location_reference: null,
    verdict: {
      code: "verified",
      status: "valid",
      sentence:
        mode === "test"
          ? "Verified, but a TEST proof: sealed and intact, with a simulated timestamp and a test seal; no legal value."
          : "Verified: sealed as a whole and intact; the stored files match the sealed ones.",
    },
    sealed_at: sealedAt,
    manifest_sha256: sha256(`${id}-manifest`),
    timestamp: { gen_time: sealedAt, qualified: false, authority: "Local Test TSA", serial: "0x5f3a9c21d4e8b7a6", policy: "1.2.3.4.1" },
    seal: { certificate_subject: "CN=Proof seal (local), O=Proof-sealing service", certificate_sha256: sha256(`${id}-seal`) },
    roots: { timestamp_authority_root_sha256: sha256("tsa-root"), c2pa_root_sha256: sha256("c2pa-root") },
    claims: {
      proven: mode === "test" ? [] : ["These files are unchanged since the certified time.", "These files existed no later than the certified time."],
      reported_by_device: ["Whether each file was shot with the camera or chosen from the device's files.", "The device's time of each shot."],
      not_proven: [
        ...(mode === "test" ? ["Anything at all: this is a test proof, of no legal value."] : []),
        "What the pictures show: that the scene is real, complete or shown fairly.",
      ],
    },
    verification_url: `http://localhost:8787/p/${id}`,
    package_url: `http://localhost:8787/v1/public/proofs/${id}/package`,
    attachments: {
      manifest_json_base64: Buffer.from(`{"proof_id":"${id}"}`).toString("base64"),
      manifest_p7s_base64: Buffer.from("p7s").toString("base64"),
      proof_tsr_base64: Buffer.from("tsr").toString("base64"),
    },
    files,
  };
}

/** A job for one proof of `count` photos over two steps (the first two photos in the first step). */
export async function singleProofJob(
  base: string,
  sources: Map<string, Uint8Array>,
  language: ReportLanguage,
  mode: ReportProof["mode"],
  count = 3,
): Promise<ReportJob> {
  const id = `prf_${Math.random().toString(36).slice(2, 12)}`;
  const files = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      reportPhoto(base, sources, {
        id: `med_${id.slice(4)}_${i}`,
        number: i + 1,
        position: i < 2 ? i + 1 : i - 1,
        step: i < 2 ? "front" : "dashboard",
        seed: i + 1,
        receivedAt: `2026-11-26T10:0${i % 10}:1${i % 10}.000Z`,
        method: i === 1 ? "file" : "camera",
        signals:
          i === 1
            ? [
                {
                  code: "camera_shot_has_camera_exif",
                  sentence: "Reported as a camera shot, yet its metadata names a camera maker or model.",
                  detail: "EXIF Make",
                },
              ]
            : [],
      }),
    ),
  );
  return {
    kind: "proof",
    language,
    organization: "Northwind Car Leasing",
    report_url: `http://localhost:8787/v1/public/proofs/${id}/report.pdf`,
    verification_url: `http://localhost:8787/p/${id}`,
    proofs: [reportProof(id, "single", mode, "2026-11-26T10:05:42.000Z", files)],
    deadline: new Date(Date.now() + 5 * 60_000).toISOString(),
  };
}

/** A before/after pair of two steps; the after has one shot fewer in its second step, and one reused photo flagged. */
export async function pairJob(base: string, sources: Map<string, Uint8Array>, language: ReportLanguage, mode: ReportProof["mode"]): Promise<ReportJob> {
  const beforeId = `prf_${Math.random().toString(36).slice(2, 12)}`;
  const afterId = `prf_${Math.random().toString(36).slice(2, 12)}`;
  const shots = (proofId: string, hour: string, seedBase: number, count: number, signals: ReportFile["signals"]) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        reportPhoto(base, sources, {
          id: `med_${proofId.slice(4)}_${i}`,
          number: i + 1,
          position: i < 2 ? i + 1 : i - 1,
          step: i < 2 ? "front" : "dashboard",
          seed: seedBase + i,
          receivedAt: `2026-11-26T${hour}:1${i}:0${i}.000Z`,
          signals: i === 0 ? signals : [],
        }),
      ),
    );
  const reused = [
    { code: "sealed_before", sentence: "The same bytes were sealed before, in another proof.", detail: "The same bytes were sealed before, in another proof." },
  ];
  const [before, after] = [await shots(beforeId, "09", 11, 4, []), await shots(afterId, "17", 21, 3, reused)];
  // The after's first photo is the before's first, sealed again: the same bytes.
  after[0] = { ...after[0]!, sha256: before[0]!.sha256, size: before[0]!.size };
  sources.set(new URL(after[0].picture!.url).pathname, sources.get(new URL(before[0]!.picture!.url).pathname)!);
  return {
    kind: "pair",
    language,
    organization: "Northwind Car Leasing",
    report_url: `http://localhost:8787/v1/public/proofs/${afterId}/pair-report.pdf`,
    verification_url: `http://localhost:8787/p/${afterId}`,
    proofs: [reportProof(beforeId, "before", mode, "2026-11-26T09:22:30.000Z", before), reportProof(afterId, "after", mode, "2026-11-26T17:20:03.000Z", after)],
    deadline: new Date(Date.now() + 5 * 60_000).toISOString(),
  };
}
