/**
 * The bench's sealer job run against a `npm run dev` stack's own storage: workerd's local R2, reached
 * through the Worker's signed storage route with URLs signed as the Worker signs them for the sealer
 * (src/sealing/consumer.ts). Comparing end to end with this job compares like with like: what is left
 * is what the Worker adds (queue hand-over, the exchange with the sealer, storing), not the local R2
 * simulation's cost, which production does not have (there the sealer uses R2 presigned URLs).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseDevVars } from "../scripts/lib/dev-vars.ts";
import { type LocalGrant, localGrantUrl } from "../shared/local-storage-grant.ts";
import type { SealJob } from "../shared/sealer-protocol.ts";
import type { Stack } from "../test/e2e/support/stack.ts";
import { benchPhotos } from "./photos.ts";

const LIFETIME_SECONDS = 30 * 60;
const root = resolve(import.meta.dirname, "..");

/** A URL for one request, signed as the stack's Worker signs it (its key is in the checkout's .dev.vars, written by `npm run dev`). */
function stackUrlSigner(stack: Stack) {
  const signingKey = parseDevVars(readFileSync(resolve(root, ".dev.vars"), "utf8")).UPLOAD_URL_SIGNING_KEY;
  if (!signingKey) throw new Error(".dev.vars has no UPLOAD_URL_SIGNING_KEY");
  return async (grant: Omit<LocalGrant, "e">) => {
    const url = await localGrantUrl(stack.captureBaseUrl, signingKey, { ...grant, e: Math.floor(Date.now() / 1000) + LIFETIME_SECONDS });
    const headers: Record<string, string> = grant.c ? { "Content-Type": grant.c } : {};
    return { url, method: grant.m, headers };
  };
}

/** Stores the bench photos in the stack's R2 once; returns a maker of jobs reading them, each writing under its own keys. */
export async function stackStorageJobs(stack: Stack): Promise<(template: SealJob) => Promise<SealJob>> {
  const sign = stackUrlSigner(stack);
  const photos = benchPhotos();
  const prefix = `bench/${Date.now()}`;
  await Promise.all(
    photos.map(async (photo, i) => {
      const sha256 = createHash("sha256").update(photo).digest("hex");
      const upload = await sign({ m: "PUT", k: `${prefix}/originals/${i}`, s: sha256, n: photo.length, c: "image/jpeg" });
      const stored = await fetch(upload.url, { method: "PUT", headers: upload.headers, body: new Uint8Array(photo) });
      if (stored.status !== 200) throw new Error(`bench upload: ${stored.status} ${await stored.text()}`);
    }),
  );
  let run = 0;
  return async (template) => {
    const runPrefix = `${prefix}/run-${run++}`;
    const writeTo = async (key: string, contentType: string) => {
      const [put, remove] = await Promise.all([sign({ m: "PUT", k: key, c: contentType }), sign({ m: "DELETE", k: key })]);
      return { destination: put, discard: remove };
    };
    const files = await Promise.all(
      template.files.map(async (file, i) => {
        const source = await sign({ m: "GET", k: `${prefix}/originals/${i}` });
        const signed = await writeTo(`${runPrefix}/signed/${i}`, file.content_type);
        return {
          ...file,
          source: { url: source.url, headers: source.headers },
          ...signed,
          thumbnail: await writeTo(`${runPrefix}/thumbnails/${i}`, "image/webp"),
        };
      }),
    );
    return { ...template, files };
  };
}
