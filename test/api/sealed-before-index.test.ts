import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { sealedBytesPrefix } from "../../src/storage/objects/bucket.ts";
import type { PerceptualFingerprint, SealJob } from "../../shared/sealer-protocol.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

/**
 * The sealed-before index (docs/adr/0065) is empty objects in R2: an insider able to write to the bucket puts or
 * deletes one (forger session 7, G4). An entry counts only when D1 and the named proof's own files confirm it; a
 * deleted one hides the exact-bytes signal, and the similarity index, which that insider cannot write, still flags
 * the same photo.
 */
const PHOTO: PerceptualFingerprint = { phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" };

/** Seals a pending one-file proof of the organization, its original's hash `sha256` when given, its photo fingerprinted as `print`. */
async function sealedOne(
  organizationId: string,
  options: { sha256?: string; print?: PerceptualFingerprint; beforeSealing?: (sha256: string) => Promise<void> } = {},
) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1);
  if (options.sha256) await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(options.sha256, fileIds[0]).run();
  const row = await env.DB.prepare("SELECT sha256 FROM files WHERE id = ?").bind(fileIds[0]).first<{ sha256: string }>();
  await options.beforeSealing?.(row!.sha256);
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => ({ ...file, fingerprint: options.print ?? null }));
    return answer;
  });
  expect(await sealProof(deps, proofId)).toBe("sealed");
  const sealedAt = (await env.DB.prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(proofId).first<{ sealed_at: string }>())!.sealed_at;
  return { proofId, fileId: fileIds[0]!, sha256: row!.sha256, sealedAt };
}

const plant = (organizationId: string, sha256: string, sealedAt: string, proofId: string) =>
  env.FILES.put(`${sealedBytesPrefix(organizationId, "test", sha256)}${sealedAt}/${proofId}`, new Uint8Array());

const signalsOf = async (proofId: string) => (await filesOfProof(proofId))[0]!.signals ?? [];

describe("the sealed-before index decides nothing D1 and the named proof's files do not confirm", () => {
  it("an entry planted for a new capture's bytes, naming a sealed proof of the organization, puts no sealed_before in its seal", async () => {
    const org = await createOrganization();
    const stranger = await createOrganization();
    const unrelated = await sealedOne(org.id);
    const theirs = await sealedOne(stranger.id);
    const pending = await insertPendingProof(org.id, "test", 1);
    const later = await sealedOne(org.id, {
      beforeSealing: async (sha256) => {
        // At a made-up time, and at its own seal time (public); another organization's proof; a pending one; an id never minted.
        await plant(org.id, sha256, "2000-01-01T00:00:00.000Z", unrelated.proofId);
        await plant(org.id, sha256, unrelated.sealedAt, unrelated.proofId);
        await plant(org.id, sha256, theirs.sealedAt, theirs.proofId);
        await plant(org.id, sha256, "2001-01-01T00:00:00.000Z", pending.proofId);
        await plant(org.id, sha256, "2002-01-01T00:00:00.000Z", "prf_00nothingeverminted00");
        // Not of the shape sealing writes: names nothing, its id never sent to D1.
        await plant(org.id, sha256, "2003-01-01T00:00:00.000Z", `prf_${"0".repeat(300)}`);
        await plant(org.id, sha256, "yesterday", unrelated.proofId);
      },
    });
    expect(await signalsOf(later.proofId)).toEqual([]);
    const published = await callJson(`/v1/public/proofs/${later.proofId}`);
    expect(JSON.stringify(published.body.files[0].signals)).not.toContain("sealed_before");
  });

  it("the bytes an earlier proof really holds are still flagged, past entries planted before its own", async () => {
    const org = await createOrganization();
    const decoys = [await sealedOne(org.id), await sealedOne(org.id)];
    const earlier = await sealedOne(org.id);
    // Planted earlier in key order than the genuine entry, naming sealed proofs at their seal times: read, refused, passed.
    for (const decoy of decoys) await plant(org.id, earlier.sha256, decoy.sealedAt, decoy.proofId);
    const later = await sealedOne(org.id, { sha256: earlier.sha256 });
    expect(await signalsOf(later.proofId)).toEqual([expect.objectContaining({ code: "sealed_before", proof_id: earlier.proofId })]);
    // A sealed file uploaded again: its original is the earlier proof's signed copy.
    const [earlierFile] = await filesOfProof(earlier.proofId);
    const again = await sealedOne(org.id, { sha256: earlierFile!.signedSha256! });
    expect((await signalsOf(again.proofId)).map((signal) => signal.code)).toEqual(["sealed_before"]);
  });

  it("the bytes an earlier proof really holds are still flagged past 20, or 200, entries of made-up ids listed before its own", async () => {
    const org = await createOrganization();
    const earlier = await sealedOne(org.id);
    const plantMadeUp = (from: number, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          plant(org.id, earlier.sha256, "2000-01-01T00:00:00.000Z", `prf_00${String(from + index).padStart(20, "0")}`),
        ),
      );
    await plantMadeUp(0, 20);
    const later = await sealedOne(org.id, { sha256: earlier.sha256 });
    expect(await signalsOf(later.proofId)).toEqual([expect.objectContaining({ code: "sealed_before", proof_id: earlier.proofId })]);
    await plantMadeUp(20, 180);
    const again = await sealedOne(org.id, { sha256: earlier.sha256 });
    expect(await signalsOf(again.proofId)).toEqual([expect.objectContaining({ code: "sealed_before", proof_id: earlier.proofId })]);
  });

  it("an entry deleted hides the exact-bytes signal; the similarity index still flags the same photo at distance 0", async () => {
    const org = await createOrganization();
    const earlier = await sealedOne(org.id, { print: PHOTO });
    const listed = await env.FILES.list({ prefix: sealedBytesPrefix(org.id, "test", earlier.sha256) });
    expect(listed.objects).toHaveLength(1);
    await env.FILES.delete(listed.objects[0]!.key);
    const later = await sealedOne(org.id, { sha256: earlier.sha256, print: PHOTO });
    const signals = await signalsOf(later.proofId);
    expect(signals.map((signal) => signal.code)).not.toContain("sealed_before");
    expect(signals).toContainEqual(expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: earlier.proofId, distance: 0 }));
  });
});
