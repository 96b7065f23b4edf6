import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env.ts";
import { workerContext } from "../../src/domain/context.ts";
import { sealingDependencies } from "../../src/sealing/consumer.ts";

const ACCOUNT_HOST = "0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com";
const production: Env = {
  ...env,
  R2_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
  R2_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  R2_S3_ENDPOINT: `https://${ACCOUNT_HOST}/`,
};

describe("where the sealer reads and writes files (issue 17)", () => {
  it("with R2 credentials (production), straight from R2 through presigned S3 URLs: no byte passes through the Worker", async () => {
    const deps = sealingDependencies(workerContext(production));
    const key = "proofs/prf_1/runs/run_1/files/med_1.jpg";
    const urls = [(await deps.downloadUrl("originals/med_1")).url, (await deps.uploadUrl(key, "image/jpeg")).url, (await deps.discardUrl(key)).url];
    for (const url of urls) {
      expect(new URL(url).host).toBe(ACCOUNT_HOST);
      expect(new URL(url).searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("without them (local development and tests), through the Worker's signed storage route, the closest to R2 there", async () => {
    const deps = sealingDependencies(workerContext(env));
    const { url } = await deps.downloadUrl("originals/med_1");
    expect(url.startsWith(`${env.CAPTURE_BASE_URL.replace(/\/$/, "")}/u/`)).toBe(true);
  });
});
