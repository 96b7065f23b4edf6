import { describe, expect, it } from "vitest";
import { readWranglerConfig } from "./support/deploy-configuration.ts";
import { SEALER_INSTANCES } from "../../src/sealing/sealer-client.ts";

/**
 * Jobs one sealer instance runs at once without queueing: its 2 vCPU stay busy while the other job waits
 * on storage or the authority, and its memory budget (1 GiB of originals) holds two 500 MiB videos
 * (docs/adr/0011-sealing-concurrency.md).
 */
const JOBS_PER_SEALER = 2;

// Runs in Node without the dev stack: it reads wrangler.toml as wrangler resolves it.
describe("the sealing queue's consumer in wrangler.toml", () => {
  for (const environment of [undefined, "production"]) {
    it(`${environment ?? "top level"}: sends the sealers at most what they run at once, one proof per invocation in production`, () => {
      const config = readWranglerConfig(environment);
      const consumer = (config.queues.consumers ?? []).find((candidate) => candidate.queue === "proof-sealing");
      const sealer = (config.containers ?? []).find((container) => container.class_name === "SealerContainer");
      expect(sealer?.max_instances).toBe(SEALER_INSTANCES);
      // Without max_concurrency, Queues scales to 250 invocations: up to 250 × batch jobs on 5 containers.
      expect(consumer?.max_concurrency).toBeDefined();
      // Production: one proof per invocation. Locally one batch runs at a time, so the same number of proofs
      // at once is one batch (ADR 0050).
      expect(consumer!.max_batch_size).toBe(environment === "production" ? 1 : SEALER_INSTANCES * JOBS_PER_SEALER);
      expect(consumer!.max_batch_size! * consumer!.max_concurrency!).toBe(SEALER_INSTANCES * JOBS_PER_SEALER);
    });
  }
});
