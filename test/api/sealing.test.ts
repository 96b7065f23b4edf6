import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { consumeSealingMessages } from "../../src/sealing/consumer.ts";
import type { SealJob, SealResult } from "../../shared/sealer-protocol.ts";
import { SEALING_RETRY_DELAYS_SECONDS } from "../../src/sealing/retry-schedule.ts";
import { SEAL_TIMEOUT_MS, TransientSealingError } from "../../src/sealing/sealer-client.ts";
import { proofArtifactKeys } from "../../src/storage/objects/bucket.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { resumeStalledSealing, stalledAfterMs } from "../../src/sweeps/resume-stalled-sealing.ts";
import { admin } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { workerContext } from "../../src/domain/context.ts";
import { filesOfProof } from "./support/proof-files.ts";

async function state(proofId: string, organizationId: string) {
  const proof = await env.DB.prepare("SELECT * FROM proofs WHERE id = ?").bind(proofId).first<any>();
  const events = await env.DB.prepare("SELECT * FROM events WHERE organization_id = ? ORDER BY created_at").bind(organizationId).all<any>();
  const balance = await admin(`/admin/v1/organizations/${organizationId}/balance`, { amount: 0, reason: "read" });
  return { proof, events: events.results, balance: balance.body };
}

describe("sealing a proof", () => {
  it("seals, stores the artifacts, consumes the live reservation and records proof.sealed once", async () => {
    const org = await createOrganization({ balance: 5 });
    const { proofId, sessionId, fileIds } = await insertPendingProof(org.id, "live");
    expect((await state(proofId, org.id)).balance).toEqual({ balance: 5, available: 4 });
    const seal = vi.fn(async (job: SealJob) => sealedAnswer(job));
    const { deps, published } = dependencies(seal);

    expect(await sealProof(deps, proofId)).toBe("sealed");

    const job = seal.mock.calls[0]![0];
    expect(job.files.map((f) => f.id).sort()).toEqual([...fileIds].sort());
    expect(job.files[0]!.destination.url).toMatch(new RegExp(`proofs/${proofId}/runs/run_[a-z0-9]+/files/`));
    // The sealer may delete exactly what it wrote, and stops when the Worker stops waiting.
    expect(job.files.every((f) => f.discard.method === "DELETE" && f.discard.url === f.destination.url)).toBe(true);
    expect(Date.parse(job.deadline) - Date.now()).toBeGreaterThan(SEAL_TIMEOUT_MS - 60_000);
    expect(Date.parse(job.deadline) - Date.now()).toBeLessThanOrEqual(SEAL_TIMEOUT_MS);
    const after = await state(proofId, org.id);
    const manifestSha256 = await sha256Hex(JSON.stringify({ proof_id: proofId }));
    expect(after.proof).toMatchObject({ status: "sealed", holds_reservation: 0, manifest_sha256: manifestSha256, timestamp_qualified: 0 });
    expect(after.balance).toEqual({ balance: 4, available: 4 });
    expect(after.events).toHaveLength(1);
    expect(after.events[0].type).toBe("proof.sealed");
    expect(JSON.parse(after.events[0].data)).toEqual({
      proof_id: proofId,
      session_id: sessionId,
      external_reference: `ref-${proofId}`,
      party: "provider",
      stage: "checkin",
      compare_to: null,
      manifest_sha256: manifestSha256,
      timestamp: { gen_time: "2026-11-22T10:00:00Z", qualified: false },
      sealed_at: after.proof.sealed_at,
      signals: [],
    });
    expect(published).toEqual([after.events[0].id]);
    const run = after.proof.sealing_run;
    const manifest = await env.FILES.get(proofArtifactKeys(proofId, run).manifest);
    expect(await manifest?.text()).toBe(JSON.stringify({ proof_id: proofId }));
    const tsr = await env.FILES.get(proofArtifactKeys(proofId, run).timestampResponse);
    expect(await tsr?.text()).toBe("tsr-bytes");
    const signed = await filesOfProof(proofId);
    expect(signed.every((f) => f.signedSha256 === "b".repeat(64) && f.signedKey!.startsWith(`proofs/${proofId}/runs/${run}/files/`))).toBe(true);
    // The sealer's CRC-32 is kept for the package's ZIP, which then never computes it in the Worker.
    expect(signed.map((f) => f.signedCrc32)).toEqual([0xcafe0001, 0xcafe0001]);
  });

  it("is idempotent: sealing twice, or twice at once, changes balance and events exactly once", async () => {
    const org = await createOrganization({ balance: 3 });
    const { proofId } = await insertPendingProof(org.id, "live");
    const { deps } = dependencies(async (job) => sealedAnswer(job));
    const outcomes = await Promise.all([sealProof(deps, proofId), sealProof(deps, proofId), sealProof(deps, proofId)]);
    expect(outcomes.filter((o) => o === "sealed")).toHaveLength(1);
    expect(await sealProof(deps, proofId)).toBe("already_done");
    const after = await state(proofId, org.id);
    expect(after.balance).toEqual({ balance: 2, available: 2 });
    expect(after.events.filter((e) => e.type === "proof.sealed")).toHaveLength(1);
  });

  it("never mixes the outputs of concurrent runs: the proof publishes one run's manifest, files and artifacts, and the others are removed", async () => {
    const org = await createOrganization({ balance: 3 });
    const { proofId } = await insertPendingProof(org.id, "live", 2);
    const runs: string[] = [];
    const { deps } = dependencies(async (job) => {
      const run = /runs\/(run_[a-z0-9]+)\//.exec(job.files[0]!.destination.url)![1]!;
      runs.push(run);
      // Each run signs and timestamps anew: different hashes, different manifest.
      for (const file of job.files) await env.FILES.put(new URL(file.destination.url).pathname.slice(1), `signed by ${run}`);
      const runHex = (pad: string) =>
        [...run]
          .map((c) => c.charCodeAt(0).toString(16))
          .join("")
          .padEnd(64, pad)
          .slice(0, 64);
      const answer = sealedAnswer(job);
      return {
        ...answer,
        manifest: JSON.stringify({ proof_id: job.proof.id, run }),
        manifest_sha256: runHex("0"),
        files: answer.files.map((file) => ({ ...file, signed_sha256: runHex("1"), signed_size: 10, signed_crc32: 1 })),
      };
    });
    const outcomes = await Promise.all([sealProof(deps, proofId), sealProof(deps, proofId), sealProof(deps, proofId), sealProof(deps, proofId)]);
    expect(outcomes.filter((o) => o === "sealed")).toHaveLength(1);
    const proof = await env.DB.prepare("SELECT * FROM proofs WHERE id = ?").bind(proofId).first<any>();
    const winner = proof.sealing_run as string;
    expect(runs).toContain(winner);
    expect(runs.length).toBeGreaterThan(1);
    const manifest = await (await env.FILES.get(proofArtifactKeys(proofId, winner).manifest))!.text();
    expect(JSON.parse(manifest).run).toBe(winner);
    const files = await filesOfProof(proofId);
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file.signedKey).toContain(`/runs/${winner}/`);
      expect(await (await env.FILES.get(file.signedKey!))!.text()).toBe(`signed by ${winner}`);
    }
    expect(new Set(files.map((f) => f.signedSha256)).size).toBe(1);
    for (const loser of runs.filter((run) => run !== winner)) {
      expect((await env.FILES.list({ prefix: `proofs/${proofId}/runs/${loser}/` })).objects).toHaveLength(0);
    }
    expect((await state(proofId, org.id)).events.filter((e: any) => e.type === "proof.sealed")).toHaveLength(1);
  });

  it("never bills a test proof", async () => {
    const org = await createOrganization({ balance: 1 });
    const { proofId } = await insertPendingProof(org.id, "test");
    const { deps } = dependencies(async (job) => sealedAnswer(job));
    expect(await sealProof(deps, proofId)).toBe("sealed");
    expect((await state(proofId, org.id)).balance).toEqual({ balance: 1, available: 1 });
  });

  it("fails a proof with the sealer's code, releases the reservation and records proof.failed", async () => {
    const org = await createOrganization({ balance: 2 });
    const { proofId } = await insertPendingProof(org.id, "live");
    const { deps, published } = dependencies(async () => ({ status: "failed", code: "file_hash_mismatch", message: "The bytes differ.", file_id: "med_x" }));
    expect(await sealProof(deps, proofId)).toBe("failed");
    const after = await state(proofId, org.id);
    expect(after.proof).toMatchObject({ status: "failed", failure_code: "file_hash_mismatch", holds_reservation: 0 });
    expect(after.balance).toEqual({ balance: 2, available: 2 });
    expect(after.events.map((e) => e.type)).toEqual(["proof.failed"]);
    expect(JSON.parse(after.events[0].data)).toMatchObject({ proof_id: proofId, code: "file_hash_mismatch", message: "The bytes differ." });
    expect(published).toHaveLength(1);
  });
});

describe("a run the sealer does not finish", () => {
  it("leaves no signed copy in storage, whether the sealer failed the proof or died mid-run", async () => {
    const org = await createOrganization({ balance: 2 });
    const endings = [
      async (): Promise<SealResult> => ({ status: "failed", code: "file_corrupt", message: "Broken.", file_id: "med_x" }),
      async (): Promise<SealResult> => {
        throw new TransientSealingError("sealer unreachable: connection reset");
      },
    ];
    for (const ending of endings) {
      const { proofId } = await insertPendingProof(org.id, "live");
      const keys: string[] = [];
      const { deps } = dependencies(async (job) => {
        // The sealer had written one copy when the run ended.
        const key = new URL(job.files[0]!.destination.url).pathname.slice(1);
        await env.FILES.put(key, "half a run");
        keys.push(key);
        return ending();
      });
      await sealProof(deps, proofId).catch((error: unknown) => expect(error).toBeInstanceOf(TransientSealingError));
      expect(keys).toHaveLength(1);
      expect(await env.FILES.head(keys[0]!)).toBeNull();
    }
  });
});

describe("sealing queue consumer", () => {
  it("retries a transient failure with the schedule's delay", async () => {
    const org = await createOrganization({ balance: 2 });
    const { proofId } = await insertPendingProof(org.id, "live");
    const { deps } = dependencies(async () => {
      throw new TransientSealingError("authority unreachable");
    });
    const batch = createMessageBatch("proof-sealing", [{ id: "m1", timestamp: new Date(), attempts: 1, body: { proof_id: proofId } }]);
    const ctx = createExecutionContext();
    // The queue result does not report the delay asked for, so watch the call itself.
    const retry = vi.spyOn(batch.messages[0]!, "retry");
    await consumeSealingMessages(batch.messages, deps);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: "m1" }]);
    expect(retry).toHaveBeenCalledWith({ delaySeconds: SEALING_RETRY_DELAYS_SECONDS[0] });
    expect((await state(proofId, org.id)).proof.status).toBe("pending");
  });

  it("fails the proof with sealing_unavailable once the retry budget is spent", async () => {
    const org = await createOrganization({ balance: 2 });
    const { proofId } = await insertPendingProof(org.id, "live");
    const { deps } = dependencies(async () => {
      throw new TransientSealingError("authority unreachable");
    });
    const attempts = SEALING_RETRY_DELAYS_SECONDS.length + 1;
    const batch = createMessageBatch("proof-sealing", [{ id: "m2", timestamp: new Date(), attempts, body: { proof_id: proofId } }]);
    const ctx = createExecutionContext();
    await consumeSealingMessages(batch.messages, deps);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m2"]);
    const after = await state(proofId, org.id);
    expect(after.proof).toMatchObject({ status: "failed", failure_code: "sealing_unavailable", holds_reservation: 0 });
    expect(after.balance).toEqual({ balance: 2, available: 2 });
  });

  it("counts the proof's own attempts: a fresh message (sent again by the sweep) cannot extend a spent budget", async () => {
    const org = await createOrganization({ balance: 2 });
    const { proofId } = await insertPendingProof(org.id, "live");
    await env.DB.prepare("UPDATE proofs SET seal_attempts = ? WHERE id = ?").bind(SEALING_RETRY_DELAYS_SECONDS.length, proofId).run();
    const { deps } = dependencies(async () => {
      throw new TransientSealingError("authority unreachable");
    });
    const batch = createMessageBatch("proof-sealing", [{ id: "m3", timestamp: new Date(), attempts: 1, body: { proof_id: proofId } }]);
    await consumeSealingMessages(batch.messages, deps);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["m3"]);
    expect((await state(proofId, org.id)).proof).toMatchObject({ status: "failed", failure_code: "sealing_unavailable" });
  });
});

describe("stalled-sealing sweep", () => {
  const secondsAgo = (now: Date, seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

  it("sends again only proofs past their next expected attempt, not those waiting for a retry or being sealed", async () => {
    const org = await createOrganization();
    const now = new Date();
    // Silent 45 s past the retry delay (three progress marks missed, ADR 0050): 0 s after completion, 600 s after the 7th attempt.
    const cases = [
      { attempts: 0, updated: 40, resent: false },
      { attempts: 0, updated: 50, resent: true },
      { attempts: 7, updated: 640, resent: false },
      { attempts: 7, updated: 650, resent: true },
    ];
    const ids: string[] = [];
    for (const example of cases) {
      const { proofId } = await insertPendingProof(org.id, "test", 1);
      await env.DB.prepare("UPDATE proofs SET seal_attempts = ?, updated_at = ? WHERE id = ?")
        .bind(example.attempts, secondsAgo(now, example.updated), proofId)
        .run();
      ids.push(proofId);
    }
    await resumeStalledSealing(workerContext(env), now);
    for (const [index, example] of cases.entries()) {
      const row = await env.DB.prepare("SELECT updated_at FROM proofs WHERE id = ?").bind(ids[index]).first<any>();
      // A proof sent again is given three minutes to show progress before it can be sent once more.
      expect({ ...example, touched: row.updated_at === new Date(now.getTime() + 3 * 60_000).toISOString() }).toEqual({ ...example, touched: example.resent });
    }
    expect(stalledAfterMs(7)).toBe((SEALING_RETRY_DELAYS_SECONDS[6] + 45) * 1000);
  });
});
