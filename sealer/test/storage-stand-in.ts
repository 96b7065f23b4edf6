import { after } from "node:test";
import { createServer } from "node:http";
import { SEALER_PROTOCOL_VERSION, type SealJob, type SealRequest } from "../../shared/sealer-protocol.ts";
import { fixture, sha256 } from "./support.ts";

/**
 * A stand-in for storage reached through signed URLs: GET serves sources, PUT records signed copies,
 * DELETE removes them (thumbnails are written under /thumbnails/). `onPut` lets a test act once a copy is stored, before storage answers.
 */
export const sources = new Map<string, Uint8Array>();
export const written = new Map<string, Uint8Array>();
export const deleted: string[] = [];
export const storageHooks: { onPut?: (key: string) => Promise<void> | void } = {};
const storage = createServer(async (req, res) => {
  const key = req.url ?? "";
  if (req.method === "GET") {
    const bytes = sources.get(key);
    if (!bytes) return res.writeHead(404).end();
    return res.writeHead(200).end(Buffer.from(bytes));
  }
  if (req.method === "DELETE") {
    written.delete(key);
    deleted.push(key);
    return res.writeHead(204).end();
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  written.set(key, new Uint8Array(Buffer.concat(chunks)));
  await storageHooks.onPut?.(key);
  if (!res.destroyed) res.writeHead(200).end();
});
await new Promise<void>((done) => storage.listen(0, "127.0.0.1", done));
export const base = `http://127.0.0.1:${(storage.address() as { port: number }).port}`;
after(() => storage.close());

export function job(files: { name: string; type: string; bytes?: Uint8Array; declared?: Partial<{ sha256: string; size: number }> }[]): SealJob {
  const id = `prf_${Math.random().toString(36).slice(2)}`;
  return {
    proof: {
      id,
      organization_id: "org_1",
      mode: "test",
      external_reference: "ref-1",
      party: "provider",
      stage: "checkin",
      category: null,
      location_reference: null,
      session_id: "cps_1",
      compare_to: null,
      compare_to_manifest_sha256: null,
      template_sha256: "0".repeat(64),
    },
    files: files.map((file, index) => {
      const bytes = file.bytes ?? fixture(file.name);
      const fileId = `med_${id}_${index}`;
      sources.set(`/src/${fileId}`, bytes);
      return {
        id: fileId,
        step_id: "photos",
        position: index + 1,
        kind: file.type.startsWith("video") ? "video" : "photo",
        content_type: file.type,
        size: file.declared?.size ?? bytes.length,
        sha256: file.declared?.sha256 ?? sha256(bytes),
        captured_at: "2026-11-22T10:00:00.000Z",
        capture_context: { method: "camera", clock_offset_ms: 120 },
        source: { url: `${base}/src/${fileId}` },
        destination: { url: `${base}/signed/${fileId}`, method: "PUT", headers: {} },
        discard: { url: `${base}/signed/${fileId}`, method: "DELETE", headers: {} },
        thumbnail: {
          destination: { url: `${base}/thumbnails/${fileId}`, method: "PUT", headers: {} },
          discard: { url: `${base}/thumbnails/${fileId}`, method: "DELETE", headers: {} },
        },
      };
    }),
    deadline: new Date(Date.now() + 60_000).toISOString(),
  };
}

/** The body of `POST /seal` for a job, as the Worker sends it. */
export const sealRequestBody = (sealJob: SealJob) => JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...sealJob } satisfies SealRequest);
