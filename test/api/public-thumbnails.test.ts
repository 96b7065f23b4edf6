import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

/** A few bytes standing for the WebP the sealer writes (the sealer's own tests check the real one). */
const WEBP = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0x1a, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4c]);
/** What the sealer answers of the bytes it wrote (protocol 12), and the public route compares them with. */
const WEBP_SHA256 = createHash("sha256").update(WEBP).digest("hex");

/**
 * A proof sealed through the real sealing code, the sealer stood in: it writes a thumbnail for the first
 * file where the job says and answers that it did, and makes none for the second (a video, a HEIC photo).
 */
async function sealedWithThumbnail(mode: "test" | "live") {
  const org = await createOrganization({ balance: 5 });
  const { proofId, fileIds } = await insertPendingProof(org.id, mode);
  const seal = vi.fn(async (job: SealJob) => {
    const first = job.files.find((file) => file.id === fileIds[0])!;
    await env.FILES.put(new URL(first.thumbnail!.destination.url).pathname.slice(1), WEBP);
    await env.FILES.put(new URL(first.destination.url).pathname.slice(1), "signed bytes");
    const answer = sealedAnswer(job);
    return {
      ...answer,
      files: answer.files.map((file) => ({
        ...file,
        thumbnail: file.id === fileIds[0] ? { content_type: "image/webp" as const, width: 480, height: 360, size: WEBP.length, sha256: WEBP_SHA256 } : null,
      })),
    };
  });
  const { deps } = dependencies(seal);
  expect(await sealProof(deps, proofId)).toBe("sealed");
  return { proofId, fileIds, job: seal.mock.calls[0]![0] };
}

const thumbnailPath = (proofId: string, fileId: string) => `/v1/public/proofs/${proofId}/files/${fileId}/thumbnail`;

describe("thumbnails made at sealing", () => {
  it("asks the sealer to write each file's thumbnail beside its signed copy, in the run, and records what it made", async () => {
    const { proofId, fileIds, job } = await sealedWithThumbnail("test");
    for (const file of job.files) {
      expect(file.thumbnail!.destination.url).toMatch(new RegExp(`proofs/${proofId}/runs/run_[a-z0-9]+/thumbnails/${file.id}\\.webp$`));
      expect(file.thumbnail!.discard).toEqual({ url: file.thumbnail!.destination.url, method: "DELETE", headers: {} });
    }
    const run = (await env.DB.prepare("SELECT sealing_run FROM proofs WHERE id = ?").bind(proofId).first<{ sealing_run: string }>())!.sealing_run;
    // Recorded in the run's record in R2 (issue 31 point 2), not in D1.
    const record = await (await env.FILES.get(`proofs/${proofId}/runs/${run}/record.json`))!.json<{ files: Record<string, { thumbnail: unknown }> }>();
    const stored = new Map(Object.entries(record.files).map(([id, facts]) => [id, facts.thumbnail]));
    expect(stored.get(fileIds[0]!)).toEqual({
      content_type: "image/webp",
      width: 480,
      height: 360,
      size: WEBP.length,
      sha256: WEBP_SHA256,
      key: `proofs/${proofId}/runs/${run}/thumbnails/${fileIds[0]}.webp`,
    });
    expect(stored.get(fileIds[1]!)).toBeNull();
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    const urls = new Map(body.files.map((file: { id: string; thumbnail_url: string | null }) => [file.id, file.thumbnail_url]));
    expect(urls.get(fileIds[0])).toBe(`${env.API_BASE_URL.replace(/\/$/, "")}${thumbnailPath(proofId, fileIds[0]!)}`);
    expect(urls.get(fileIds[1])).toBeNull();
  });

  it("serves it as WebP, cacheable for a year, to any origin, saying the proof's mode (as the signed file and the package do)", async () => {
    for (const mode of ["test", "live"] as const) {
      const { proofId, fileIds, job } = await sealedWithThumbnail(mode);
      const response = await call(thumbnailPath(proofId, fileIds[0]!), { headers: { Origin: "https://insurer.example" } });
      expect(response.status).toBe(200);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(WEBP);
      expect(response.headers.get("Content-Type")).toBe("image/webp");
      expect(response.headers.get("Content-Length")).toBe(String(WEBP.length));
      expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(response.headers.get("Proof-Mode")).toBe(mode);
      expect(response.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(response.headers.get("Access-Control-Expose-Headers")).toContain("Proof-Mode");
      const etag = response.headers.get("ETag")!;
      expect(etag).toMatch(/^"thumb-[0-9a-f]{64}"$/);
      const again = await call(thumbnailPath(proofId, fileIds[0]!), { headers: { "If-None-Match": etag } });
      expect(again.status).toBe(304);
      await again.arrayBuffer();
      // The signed file and the package say the proof's mode too (the package carries every signed copy: the
      // stand-in wrote the first only, and one missing answers 409 sealed_object_missing).
      for (const file of job.files) await env.FILES.put(new URL(file.destination.url).pathname.slice(1), "signed bytes");
      for (const path of [`/v1/public/proofs/${proofId}/files/${fileIds[0]}`, `/v1/public/proofs/${proofId}/package`]) {
        const bytes = await call(path);
        expect(bytes.headers.get("Proof-Mode"), path).toBe(mode);
        await bytes.body?.cancel();
      }
    }
  });

  it("answers the problem format for an unknown proof, an unknown file, a file without a thumbnail and a proof not sealed", async () => {
    const { proofId, fileIds } = await sealedWithThumbnail("test");
    const org = await createOrganization();
    const pending = await insertPendingProof(org.id, "test");
    const cases: [string, string][] = [
      [thumbnailPath("prf_unknown", fileIds[0]!), "proof_not_found"],
      [thumbnailPath(proofId, "med_unknown"), "capture_file_not_found"],
      [thumbnailPath(proofId, fileIds[1]!), "thumbnail_not_found"],
      [thumbnailPath(pending.proofId, pending.fileIds[0]!), "capture_file_not_found"],
    ];
    for (const [path, code] of cases) {
      const { status, body, headers } = await callJson(path);
      expect(status, path).toBe(404);
      expect(headers.get("Content-Type"), path).toContain("application/problem+json");
      expect(body.code, path).toBe(code);
    }
  });

  it("serves it and the signed file alike: inline under the file's id, their own length and ETag, 304 when the client has it", async () => {
    const { proofId, fileIds } = await sealedWithThumbnail("live");
    const { body: proof } = await callJson(`/v1/public/proofs/${proofId}`);
    const signedSha256 = proof.files.find((file: { id: string }) => file.id === fileIds[0]).signed_sha256;
    const cases = [
      {
        path: `/v1/public/proofs/${proofId}/files/${fileIds[0]}`,
        bytes: new TextEncoder().encode("signed bytes"),
        type: "image/jpeg",
        name: `${fileIds[0]}.jpg`,
        etag: `"${signedSha256}"`,
      },
      { path: thumbnailPath(proofId, fileIds[0]!), bytes: WEBP, type: "image/webp", name: `${fileIds[0]}-thumbnail.webp`, etag: `"thumb-${signedSha256}"` },
    ];
    for (const { path, bytes, type, name, etag } of cases) {
      const response = await call(path);
      expect(response.status, path).toBe(200);
      expect(new Uint8Array(await response.arrayBuffer()), path).toEqual(bytes);
      expect(response.headers.get("Content-Type"), path).toBe(type);
      expect(response.headers.get("Content-Length"), path).toBe(String(bytes.length));
      expect(response.headers.get("Content-Disposition"), path).toBe(`inline; filename="${name}"`);
      expect(response.headers.get("X-Content-Type-Options"), path).toBe("nosniff");
      expect(response.headers.get("Content-Security-Policy"), path).toBe("default-src 'none'; sandbox");
      expect(response.headers.get("Proof-Mode"), path).toBe("live");
      expect(response.headers.get("ETag"), path).toBe(etag);
      expect(response.headers.get("Cache-Control"), path).toBe("public, max-age=31536000, immutable");
      const again = await call(path, { headers: { "If-None-Match": `"other", ${etag}` } });
      expect(again.status, path).toBe(304);
      expect(again.headers.get("ETag"), path).toBe(etag);
      await again.arrayBuffer();
    }
  });

  it("answers the problem format for a signed file of an unknown proof, an unknown file, a proof not sealed, and a stored object gone", async () => {
    const { proofId, fileIds, job } = await sealedWithThumbnail("test");
    const org = await createOrganization();
    const pending = await insertPendingProof(org.id, "test");
    const filePath = (proof: string, file: string) => `/v1/public/proofs/${proof}/files/${file}`;
    await env.FILES.delete(new URL(job.files.find((file) => file.id === fileIds[0])!.thumbnail!.destination.url).pathname.slice(1));
    const cases: [string, string][] = [
      [filePath("prf_unknown", fileIds[0]!), "proof_not_found"],
      [filePath(proofId, "med_unknown"), "capture_file_not_found"],
      [filePath(pending.proofId, pending.fileIds[0]!), "capture_file_not_found"],
      // The sealer stand-in wrote no signed copy of the second file, and the first one's thumbnail is deleted.
      [filePath(proofId, fileIds[1]!), "capture_file_not_found"],
      [thumbnailPath(proofId, fileIds[0]!), "thumbnail_not_found"],
    ];
    for (const [path, code] of cases) {
      const { status, body, headers } = await callJson(path);
      expect(status, path).toBe(404);
      expect(headers.get("Content-Type"), path).toContain("application/problem+json");
      expect(body.code, path).toBe(code);
      // A 404 is never kept for a year: the object may be restored, and the ETag is the object's, not the problem's.
      expect(headers.get("Cache-Control") ?? "no-store", path).not.toContain("immutable");
      expect(headers.get("ETag"), path).toBeNull();
    }
  });

  it("is documented in /openapi.json with its content type, its errors and the Proof-Mode header", async () => {
    const { body } = await callJson("/openapi.json");
    const operation = body.paths["/v1/public/proofs/{id}/files/{file_id}/thumbnail"].get;
    expect(operation.operationId).toBe("getPublicProofThumbnail");
    expect(Object.keys(operation.responses["200"].content)).toEqual(["image/webp"]);
    expect(Object.keys(operation.responses["200"].headers)).toContain("Proof-Mode");
    expect(operation.security).toEqual([]);
    expect(JSON.stringify(operation.responses["404"])).toContain("thumbnail_not_found");
    for (const path of ["/v1/public/proofs/{id}/files/{file_id}", "/v1/public/proofs/{id}/package"]) {
      expect(Object.keys(body.paths[path].get.responses["200"].headers), path).toContain("Proof-Mode");
    }
  });
});
