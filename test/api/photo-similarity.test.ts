import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { database } from "../../src/db/client.ts";
import { bandQueries, CANDIDATES_PER_BAND, fingerprintCandidates, type PrintLookup } from "../../src/storage/file-fingerprints.ts";
import { indexedCandidates, indexFiles } from "../../src/storage/similarity-index.ts";
import { proofShards } from "../../src/storage/write-shards.ts";
import type { PerceptualFingerprint, SealJob } from "../../shared/sealer-protocol.ts";
import { hammingDistance, phashBands, QUERY_CROP_PHASH_MAX_DISTANCE } from "../../shared/perceptual-fingerprint.ts";
import { PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { countQueriesPerInvocation } from "./support/platform-limits.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { fileOfProof } from "./support/proof-files.ts";
import { d1FingerprintRows, indexedPrints } from "./support/similarity-index.ts";

/** A photo's fingerprints; `NEAR` has one bit flipped in each of the four pHash bands, so no band is equal. */
const PHOTO: PerceptualFingerprint = { phash: "a5c3f00f3cc35a96", dhash: "0f0f3c3cf0f05a5a" };
const NEAR: PerceptualFingerprint = { phash: "a5c2f00e3cc25a97", dhash: "0f0f3c3cf0f05a5b" };
const DISTINCT: PerceptualFingerprint = { phash: "5a3c0ff0c33ca569", dhash: "f0f0c3c30f0fa5a5" };

/** A photo's fingerprints with those of its five crops and its four query crops (docs/adr/0052). */
type PhotoPrints = PerceptualFingerprint & { crops?: PerceptualFingerprint[]; queryCrops?: PerceptualFingerprint[] };

/** Seals a pending proof whose photos the sealer fingerprinted as `prints` (null: not decoded, as a video). */
async function sealedWith(organizationId: string, prints: (PhotoPrints | null)[], mode: "test" | "live" = "test", sameBytesAs?: string) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, mode, prints.length);
  if (sameBytesAs) await env.DB.prepare("UPDATE files SET sha256 = ? WHERE id = ?").bind(sameBytesAs, fileIds[0]).run();
  const { deps } = dependencies(async (job: SealJob) => {
    const answer = sealedAnswer(job);
    answer.files = answer.files.map((file) => {
      const { crops = [], queryCrops = [], ...fingerprint } = prints[fileIds.indexOf(file.id)] ?? { crops: [] };
      return { ...file, fingerprint: "phash" in fingerprint ? fingerprint : null, crop_fingerprints: crops, query_crop_fingerprints: queryCrops };
    });
    return answer;
  });
  expect(await sealProof(deps, proofId)).toBe("sealed");
  return { proofId, fileIds };
}

/** A distinct hash per seed whose bands and their neighbours share no value with another seed's (seeds under 256). */
const hashOfSeed = (seed: number) => [0x1100, 0x2200, 0x4400, 0x8800].map((base) => (base + seed * 0x0101).toString(16).slice(-4).padStart(4, "0")).join("");

/** `phash` with the lowest `bits[n]` bits of its band n flipped. */
const flipped = (phash: string, bits: [number, number, number, number]) =>
  phashBands(phash)
    .map((band, index) => (band ^ ((1 << bits[index]!) - 1)).toString(16).padStart(4, "0"))
    .join("");

/** `d1`, recording how many values each statement binds. */
function recordingBinds(d1: D1Database, bound: number[]): D1Database {
  const method = <T extends object>(target: T, name: string | symbol) => {
    const value = Reflect.get(target, name);
    return typeof value === "function" ? value.bind(target) : value;
  };
  return new Proxy(d1, {
    get: (target, name) =>
      name === "prepare"
        ? (query: string) => {
            const prepared = target.prepare(query);
            return new Proxy(prepared, {
              get: (statement, member) =>
                member === "bind"
                  ? (...values: unknown[]) => {
                      bound.push(values.length);
                      return statement.bind(...values);
                    }
                  : method(statement, member),
            });
          }
        : method(target, name),
  });
}

/** Each file's signals, in the order of `fileIds` when given (the API lists them in capture order). */
async function signalsOf(proofId: string, key: string, fileIds?: string[]): Promise<unknown[][]> {
  const listed: { id: string; signals: unknown[] }[] = (await callJson(`/v1/proofs/${proofId}`, { key })).body.files;
  return (fileIds ?? listed.map((file) => file.id)).map((id) => listed.find((file) => file.id === id)!.signals);
}

describe("photos that look like earlier ones (issue 27, ADR 0041)", () => {
  it("flags a photo close to an earlier proof's: the API and the webhook name it, the public JSON and page do not", async () => {
    const org = await createOrganization();
    const first = await sealedWith(org.id, [PHOTO]);
    const sealedAt = (await env.DB.prepare("SELECT sealed_at FROM proofs WHERE id = ?").bind(first.proofId).first<{ sealed_at: string }>())!.sealed_at;
    const again = await sealedWith(org.id, [NEAR]);
    const distance = hammingDistance(PHOTO.phash, NEAR.phash);
    expect(distance).toBe(4);

    const [signals] = await signalsOf(again.proofId, org.testKey);
    expect(signals).toContainEqual({
      code: "similar_to_earlier_photo",
      detail: `Looks like a photo sealed on ${sealedAt} in proof ${first.proofId} (step photos): 4 of 64 bits apart.`,
      proof_id: first.proofId,
      step_id: "photos",
      distance,
      sealed_at: sealedAt,
    });

    const event = await env.DB.prepare("SELECT data FROM events WHERE type = 'proof.sealed' AND json_extract(data, '$.proof_id') = ?")
      .bind(again.proofId)
      .first<{ data: string }>();
    expect(JSON.parse(event!.data).signals).toContainEqual(
      expect.objectContaining({ file_id: again.fileIds[0], code: "similar_to_earlier_photo", proof_id: first.proofId, distance, sealed_at: sealedAt }),
    );

    const published = await callJson(`/v1/public/proofs/${again.proofId}`);
    expect(published.body.files[0].signals).toContainEqual({
      code: "similar_to_earlier_photo",
      detail: "Looks like a photo sealed earlier by the same organization, in another proof: 4 of 64 bits apart.",
      distance,
    });
    expect(JSON.stringify(published.body)).not.toContain(first.proofId);
    for (const lang of ["en", "fr", "es", "de"] as const) {
      const page = await (await call(`/p/${again.proofId}?lang=${lang}`, { headers: { Accept: "text/html" } })).text();
      const sentence = PAGE_MESSAGES[lang].signal_similar_to_earlier_photo!.replaceAll("'", "&#39;");
      // In the warning summary near the verdict, with the file it concerns by name, and on the file itself.
      const summary = page.match(/<section class="signal-summary"[^>]* data-testid="signal-summary"[\s\S]*?<\/section>/)?.[0] ?? "";
      expect(summary).toMatch(
        new RegExp(
          `<li class="warn" data-code="similar_to_earlier_photo"><svg[^>]*>.*?</svg><div><p>${sentence.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</p><p class="where"><span>${PAGE_MESSAGES[lang].kind_photo} 1</span></p>`,
        ),
      );
      expect(page.indexOf(summary)).toBeLessThan(page.indexOf('data-testid="signals-'));
      expect(page).toContain(`<li data-code="similar_to_earlier_photo">${sentence}`);
      expect(page).not.toContain(first.proofId);
    }
    // The first proof, sealed before, says nothing of the later one.
    expect((await signalsOf(first.proofId, org.testKey))[0]).toEqual([]);
  });

  it("names the earliest sealed photo within the thresholds, not a later copy closer to the new one (issue 27's first proof)", async () => {
    const org = await createOrganization();
    const first = await sealedWith(org.id, [PHOTO]);
    const copy = await sealedWith(org.id, [NEAR]);
    // One more bit from NEAR, five from PHOTO: the copy is closer, the first sealing is the one named.
    const copyOfCopy: PerceptualFingerprint = { phash: "a5c2f00e3cc25a95", dhash: NEAR.dhash };
    expect([hammingDistance(copyOfCopy.phash, NEAR.phash), hammingDistance(copyOfCopy.phash, PHOTO.phash)]).toEqual([1, 5]);
    const later = await sealedWith(org.id, [copyOfCopy]);
    const [signals] = await signalsOf(later.proofId, org.testKey);
    expect(signals).toContainEqual(expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: first.proofId, distance: 5 }));
    expect(JSON.stringify(signals)).not.toContain(copy.proofId);
  });

  it("says only sealed_before when the same bytes were sealed before: the likeness is not repeated", async () => {
    const org = await createOrganization();
    const first = await sealedWith(org.id, [PHOTO]);
    const { sha256 } = await fileOfProof(first.proofId, first.fileIds[0]!);
    const again = await sealedWith(org.id, [PHOTO], "test", sha256);
    const [signals] = await signalsOf(again.proofId, org.testKey);
    expect(signals).toEqual([expect.objectContaining({ code: "sealed_before", proof_id: first.proofId })]);
  });

  it("stores each decoded photo's fingerprint and bands in its organization's and mode's index, nothing in D1, nothing for a file without one", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedWith(org.id, [PHOTO, null]);
    const rows = await indexedPrints(org.id, proofId);
    expect(rows).toEqual([{ file_id: fileIds[0], proof_id: proofId, step_id: "photos", variant: 0, ...PHOTO, bands: phashBands(PHOTO.phash) }]);
    expect(await indexedPrints(org.id, proofId, "live")).toEqual([]);
    expect(await d1FingerprintRows(proofId)).toBe(0);
  });

  it("raises nothing for a distinct photo, another mode, or another organization's photo, whose proof is never named", async () => {
    const org = await createOrganization({ balance: 5 });
    const other = await createOrganization();
    const theirs = await sealedWith(other.id, [PHOTO]);
    const distinct = await sealedWith(org.id, [DISTINCT]);
    expect((await signalsOf(distinct.proofId, org.testKey))[0]).toEqual([]);
    const quiet = await (await call(`/p/${distinct.proofId}`, { headers: { Accept: "text/html" } })).text();
    expect(quiet).not.toContain('data-code="similar_to_earlier_photo"');
    const live = await sealedWith(org.id, [PHOTO], "live");
    expect((await callJson(`/v1/proofs/${live.proofId}`, { key: org.liveKey })).body.files[0].signals).toEqual([]);
    const ours = await sealedWith(org.id, [NEAR]);
    const [signals] = await signalsOf(ours.proofId, org.testKey);
    expect(signals).toEqual([]);
    expect(JSON.stringify(await callJson(`/v1/proofs/${ours.proofId}`, { key: org.testKey }))).not.toContain(theirs.proofId);
  });

  it("flags two photos of one proof that look alike, naming the earlier one of the proof", async () => {
    const org = await createOrganization();
    const { proofId, fileIds } = await sealedWith(org.id, [PHOTO, DISTINCT, NEAR]);
    const signals = await signalsOf(proofId, org.testKey, fileIds);
    expect(signals[1]).toEqual([]);
    // The later of the two in capture order carries it.
    const [earlier, later] = signals[0]!.length === 0 ? [fileIds[0]!, 2] : [fileIds[2]!, 0];
    expect(signals[later === 2 ? 0 : 2]).toEqual([]);
    expect(signals[later]).toEqual([
      {
        code: "similar_within_proof",
        detail: `Looks like photo ${earlier} of this proof (step photos): 4 of 64 bits apart.`,
        other_file_id: earlier,
        distance: 4,
      },
    ]);
  });

  it("flags a copy cropped from one corner: near one of the earlier photo's crops, far from its whole picture (ADR 0052)", async () => {
    const org = await createOrganization();
    const crop = { phash: hashOfSeed(200), dhash: DISTINCT.dhash };
    // One bit flipped in each band of the bottom-right crop: no band equal, 4 bits apart.
    const copy = {
      phash: phashBands(crop.phash)
        .map((band) => (band ^ 1).toString(16).padStart(4, "0"))
        .join(""),
      dhash: DISTINCT.dhash,
    };
    expect(hammingDistance(copy.phash, PHOTO.phash)).toBeGreaterThan(10);
    const first = await sealedWith(org.id, [{ ...PHOTO, crops: [DISTINCT, DISTINCT, DISTINCT, crop, DISTINCT] }]);
    const rows = await indexedPrints(org.id, first.fileIds[0]!);
    expect(rows.map(({ variant, phash, bands }) => ({ variant, phash, bands }))).toEqual(
      [PHOTO, DISTINCT, DISTINCT, DISTINCT, crop, DISTINCT].map((print, variant) => ({ variant, phash: print.phash, bands: phashBands(print.phash) })),
    );
    const again = await sealedWith(org.id, [copy]);
    const [signals] = await signalsOf(again.proofId, org.testKey);
    expect(signals).toContainEqual(expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: first.proofId, distance: 4 }));
    // Within one proof too, whichever of the two is the later: one is like the other's crop.
    const both = await sealedWith(org.id, [{ ...DISTINCT, crops: [crop, crop, crop, crop, crop] }, copy]);
    const withinProof = (await signalsOf(both.proofId, org.testKey, both.fileIds))
      .flat()
      .filter((signal) => (signal as { code: string }).code === "similar_within_proof");
    expect(withinProof).toEqual([expect.objectContaining({ other_file_id: expect.stringMatching(/^med_/), distance: 4 })]);
  });

  describe("a copy cropped 5 % off one edge, found through a query crop of it (ADR 0052)", () => {
    const corner = { phash: hashOfSeed(200), dhash: DISTINCT.dhash };
    // The new photo's whole picture and other query crops: far from every print of the earlier photo.
    const whole = { phash: hashOfSeed(150), dhash: PHOTO.dhash };
    const copyWithQueryCrop = (query: PerceptualFingerprint) => ({ ...whole, queryCrops: [whole, whole, query, whole] });
    const earlierPhoto = { ...PHOTO, crops: [DISTINCT, DISTINCT, corner, DISTINCT, DISTINCT] };

    it("flags it when a query crop is within its thresholds of an earlier photo's corner crop, through an exact band", async () => {
      const org = await createOrganization();
      const first = await sealedWith(org.id, [earlierPhoto]);
      // Two bits apart, both in the first band: the other three are equal.
      const query = { phash: flipped(corner.phash, [2, 0, 0, 0]), dhash: corner.dhash };
      for (const print of [PHOTO, ...earlierPhoto.crops]) expect(hammingDistance(whole.phash, print.phash)).toBeGreaterThan(10);
      const again = await sealedWith(org.id, [copyWithQueryCrop(query)]);
      const [signals] = await signalsOf(again.proofId, org.testKey);
      expect(signals).toEqual([expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: first.proofId, step_id: "photos", distance: 2 })]);
      // Looked up, never stored.
      expect((await indexedPrints(org.id, again.proofId)).map(({ phash }) => ({ phash }))).toEqual([{ phash: whole.phash }]);
    });

    it("raises nothing when the query crop is 7 bits away: within a photo's thresholds, beyond a query crop's", async () => {
      const org = await createOrganization();
      await sealedWith(org.id, [earlierPhoto]);
      // Seven bits apart over three bands, the fourth equal: found by the look-up, then beyond pHash 6.
      const query = { phash: flipped(corner.phash, [3, 2, 2, 0]), dhash: corner.dhash };
      expect(hammingDistance(query.phash, corner.phash)).toBe(QUERY_CROP_PHASH_MAX_DISTANCE + 1);
      const again = await sealedWith(org.id, [copyWithQueryCrop(query)]);
      expect((await signalsOf(again.proofId, org.testKey))[0]).toEqual([]);
    });
  });

  it("keeps the look-up within D1's limits: 21 bound values a statement and at most 2,500 rows a band, however crowded a band, in D1 and the index", async () => {
    const org = await createOrganization();
    const crowded = await insertPendingProof(org.id, "test", 1);
    const [band0] = phashBands(PHOTO.phash);
    // 2,900 earlier photos sharing the first band (and its neighbours) of the new one, far from it otherwise.
    const rows = Array.from({ length: CANDIDATES_PER_BAND + 400 }, (_, index) => {
      const neighbour = index % 2 === 0 ? band0 : band0 ^ (1 << (index % 16));
      const phash = `${neighbour.toString(16).padStart(4, "0")}${DISTINCT.phash.slice(4)}`;
      return env.DB.prepare(
        "INSERT INTO file_fingerprints (file_id, organization_id, mode, proof_id, step_id, sealed_at, phash, dhash, band0, band1, band2, band3) VALUES (?, ?, 'test', ?, 'photos', '2026-01-01T00:00:00.000Z', ?, ?, ?, ?, ?, ?)",
      ).bind(`med_crowd${index}`, org.id, crowded.proofId, phash, DISTINCT.dhash, ...phashBands(phash));
    });
    for (let at = 0; at < rows.length; at += 800) await env.DB.batch(rows.slice(at, at + 800));
    const bound: number[] = [];
    const candidates = await fingerprintCandidates(database(recordingBinds(env.DB, bound)), { id: "prf_new", organizationId: org.id, mode: "test" }, [PHOTO]);
    expect(candidates.length).toBe(CANDIDATES_PER_BAND);
    // One statement per band: organization, mode, the band and its 16 neighbours, the proof, the limit.
    expect(bound).toEqual([21, 21, 21, 21]);
    // The similarity index, as crowded, is looked up by the same statements and bounds (docs/adr/0064).
    const crowd = await env.DB.prepare(
      "SELECT file_id AS fileId, proof_id AS proofId, step_id AS stepId, phash, dhash FROM file_fingerprints WHERE proof_id = ?",
    )
      .bind(crowded.proofId)
      .all<{ fileId: string; proofId: string; stepId: string; phash: string; dhash: string }>();
    await indexFiles(
      env,
      { organizationId: org.id, mode: "test" },
      crowd.results.map(({ phash, dhash, ...file }) => ({ ...file, kind: "photo" as const, prints: [{ phash, dhash }] })),
    );
    await env.DB.prepare("UPDATE proofs SET status = 'sealed', sealed_at = '2026-01-01T00:00:00.000Z' WHERE id = ?").bind(crowded.proofId).run();
    expect(bandQueries([PHOTO]).map(({ values, limit }) => [values.length, limit])).toEqual(Array.from({ length: 4 }, () => [17, CANDIDATES_PER_BAND]));
    const newProof = { id: "prf_new", organizationId: org.id, mode: "test" as const };
    const indexed = await indexedCandidates(env, proofShards(env, database(env.DB), newProof), newProof, [PHOTO]);
    expect(indexed.length).toBe(CANDIDATES_PER_BAND);
    // Twelve photos: a statement per band for each group of five, 5 × 17 values and 4 at most.
    bound.length = 0;
    const twelve = Array.from({ length: 12 }, (_, index) => ({ fileId: `med_${index}`, stepId: "photos", phash: hashOfSeed(index), dhash: DISTINCT.dhash }));
    await fingerprintCandidates(database(recordingBinds(env.DB, bound)), { id: "prf_new", organizationId: org.id, mode: "test" }, twelve);
    expect(bound).toHaveLength(4 * 3);
    expect(Math.max(...bound)).toBe(89);
    // With their query crops, by exact bands: 17 + 4 values a photo, four photos a statement (88 parameters). The
    // photos' bands 0x8000 | 0x0111 × index are 3 bits apart at least and their query crops' 0x0001 to 0x0030 2 bits
    // from them at least: no value is looked up twice in a statement.
    const spread = Array.from({ length: 12 }, (_, index) => ({ phash: (0x8000 | (index * 0x0111)).toString(16).repeat(4), dhash: DISTINCT.dhash }));
    const queryCrop = (value: number) => ({ phash: value.toString(16).padStart(4, "0").repeat(4), exactBands: true });
    const withQueryCrops = (photos: readonly PerceptualFingerprint[]): PrintLookup[] =>
      photos.flatMap((photo, index) => [photo, ...[1, 2, 3, 4].map((crop) => queryCrop(4 * index + crop))]);
    bound.length = 0;
    await fingerprintCandidates(database(recordingBinds(env.DB, bound)), { id: "prf_new", organizationId: org.id, mode: "test" }, withQueryCrops([PHOTO]));
    expect(bound).toEqual([25, 25, 25, 25]);
    bound.length = 0;
    await fingerprintCandidates(database(recordingBinds(env.DB, bound)), { id: "prf_new", organizationId: org.id, mode: "test" }, withQueryCrops(spread));
    expect(bound).toEqual(Array.from({ length: 4 * 3 }, () => 88));
    // A proof of many photos still seals, each statement within the parameters the setup enforces.
    const many = await sealedWith(
      org.id,
      Array.from({ length: 60 }, (_, index) => ({ phash: hashOfSeed(index), dhash: DISTINCT.dhash })),
    );
    expect(await indexedPrints(org.id, many.proofId)).toHaveLength(60);
  });

  it("seals a proof of 200 photos with their crops and query crops in one invocation's 1,000 queries: 200 look-up statements", async () => {
    const org = await createOrganization();
    const prints = Array.from({ length: 200 }, (_, index) => {
      const print = { phash: hashOfSeed(index), dhash: DISTINCT.dhash };
      return { ...print, crops: [print, print, print, print, print], queryCrops: [print, print, print, print] };
    });
    const bound: number[] = [];
    const lookups = prints.flatMap((print) => [print, ...print.queryCrops.map(({ phash }) => ({ phash, exactBands: true }))]);
    await fingerprintCandidates(database(recordingBinds(env.DB, bound)), { id: "prf_new", organizationId: org.id, mode: "test" }, lookups);
    expect(bound).toHaveLength(200);
    // The whole sealing, counted as production counts an invocation's queries (each statement of a batch is one).
    const handler = { fetch: () => sealedWith(org.id, prints) };
    countQueriesPerInvocation(handler);
    const many = await handler.fetch();
    expect(await indexedPrints(org.id, many.proofId)).toHaveLength(1_200);
    expect(await d1FingerprintRows(many.proofId)).toBe(0);
    // 1,200 prints written and looked up: seconds on a loaded two-core machine, not the default five.
  }, 60_000);
});
