import { describe, expect, it, vi } from "vitest";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob, SealTimings } from "../../shared/sealer-protocol.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

const timings: SealTimings = {
  total_ms: 420,
  phases: { download: { wall_ms: 80, file_ms: 150 }, signing: { wall_ms: 200, file_ms: 260 }, timestamps: { wall_ms: 90, file_ms: 120 } },
  authority_calls: { proof_authority: 1, signature_authority: 2 },
};

function loggedTimes(log: { mock: { calls: unknown[][] } }) {
  return log.mock.calls
    .map(([line]) => String(line))
    .filter((line) => line.includes('"sealing times"'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { queue_handover_ms: number; sealer_call_ms: number; storing_ms: number });
}

describe("where a sealing's time went", () => {
  it("logs one line per sealed proof: the queue hand-over, the sealer's call and phases, and storing", async () => {
    const org = await createOrganization({ balance: 5 });
    const { proofId } = await insertPendingProof(org.id, "test");
    const { deps } = dependencies(async (job: SealJob) => {
      await new Promise((done) => setTimeout(done, 30));
      return { ...sealedAnswer(job), timings };
    });
    const log = vi.spyOn(console, "log");
    try {
      expect(await sealProof(deps, proofId)).toBe("sealed");
      const line = loggedTimes(log)[0]!;
      expect(line).toMatchObject({ level: "info", proof_id: proofId, files: 2, sealer: timings });
      expect(line.queue_handover_ms).toBeGreaterThanOrEqual(0);
      expect(line.sealer_call_ms).toBeGreaterThanOrEqual(30);
      expect(line.storing_ms).toBeGreaterThanOrEqual(0);
    } finally {
      log.mockRestore();
    }
  });

  it("logs nothing for a run that did not seal the proof (another run did, or the sealer failed it)", async () => {
    const org = await createOrganization({ balance: 5 });
    const { proofId } = await insertPendingProof(org.id, "test");
    const { deps } = dependencies(async (job: SealJob) => ({ ...sealedAnswer(job), timings }));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    const failing = dependencies(async () => ({ status: "failed", code: "file_corrupt", message: "bad" }));
    const other = await insertPendingProof(org.id, "test");
    const log = vi.spyOn(console, "log");
    try {
      expect(await sealProof(deps, proofId)).toBe("already_done");
      expect(await sealProof(failing.deps, other.proofId)).toBe("failed");
      expect(loggedTimes(log)).toEqual([]);
    } finally {
      log.mockRestore();
    }
  });
});
