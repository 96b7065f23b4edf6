import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { indexedPrints } from "./support/similarity-index.ts";
import { giveWriteShard } from "./support/write-shards.ts";
import { database } from "../../src/db/client.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { PerceptualFingerprint, SealJob } from "../../shared/sealer-protocol.ts";

/**
 * The similarity index by period (docs/adr/0064, 0070): an organization's proofs of its write shard NN are indexed
 * in the object `<organization>:<mode>:NN`, those of its home shard in `<organization>:<mode>` as before, and a
 * look-up asks every shard's index of the organization, each candidate counted when its proof is sealed in its shard.
 */
const PHOTO: PerceptualFingerprint = { phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" };
/** One bit flipped in each of the four pHash bands: found by band neighbours, 4 bits apart. */
const NEAR: PerceptualFingerprint = { phash: "a5c2f00e3cc25a97", dhash: "0f0f3c3cf0f05a5b" };

const BINDINGS = { "00": env.DB, "01": env.DB_01 } as const;
type Shard = keyof typeof BINDINGS;

/** An organization on 00 writing to 01 since now. */
async function organizationWritingTo01() {
  const org = await createOrganization();
  await giveWriteShard(org.id, "01", { stubName: "Stub" });
  return org.id;
}

/** Seals, in `shard`, a pending proof of one photo the sealer fingerprinted as `print`; answers it and its signals. */
async function sealedIn(shard: Shard, organizationId: string, print: PerceptualFingerprint) {
  const { proofId } = await insertPendingProof(organizationId, "test", 1, shard);
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => ({ ...file, fingerprint: print, crop_fingerprints: [], query_crop_fingerprints: [] }));
    return answer;
  });
  expect(await sealProof({ ...deps, db: database(BINDINGS[shard]) }, proofId)).toBe("sealed");
  const event = await BINDINGS[shard]
    .prepare("SELECT data FROM events WHERE type = 'proof.sealed' AND json_extract(data, '$.proof_id') = ?")
    .bind(proofId)
    .first<{ data: string }>();
  return { proofId, signals: (JSON.parse(event!.data) as { signals: { code: string; proof_id?: string }[] }).signals };
}

describe("an organization writing to a second shard", () => {
  it("flags a photo sealed in its write shard like one sealed home, and indexes it in the write shard's index", async () => {
    const organizationId = await organizationWritingTo01();
    const first = await sealedIn("00", organizationId, PHOTO);
    const again = await sealedIn("01", organizationId, NEAR);
    expect(again.signals).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: first.proofId, distance: 4 })]);

    expect((await indexedPrints(organizationId, first.proofId)).map((print) => print.phash)).toEqual([PHOTO.phash]);
    expect((await indexedPrints(organizationId, again.proofId, "test", "01")).map((print) => print.phash)).toEqual([NEAR.phash]);
    expect(await indexedPrints(organizationId, again.proofId)).toEqual([]);
    expect(await indexedPrints(organizationId, first.proofId, "test", "01")).toEqual([]);
  });

  it("flags a photo sealed home like one sealed in its write shard (an after written to its before's shard)", async () => {
    const organizationId = await organizationWritingTo01();
    const first = await sealedIn("01", organizationId, PHOTO);
    const again = await sealedIn("00", organizationId, NEAR);
    expect(again.signals).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: first.proofId, distance: 4 })]);
  });

  it("names the earliest sealing when both shards' indexes hold a likeness", async () => {
    const organizationId = await organizationWritingTo01();
    const first = await sealedIn("00", organizationId, PHOTO);
    await sealedIn("01", organizationId, PHOTO);
    const third = await sealedIn("01", organizationId, NEAR);
    expect(third.signals).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: first.proofId })]);
  });
});
