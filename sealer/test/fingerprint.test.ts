import { test } from "node:test";
import assert from "node:assert/strict";
import sharp, { type Region } from "sharp";
import { readC2pa } from "../src/c2pa/c2pa.ts";
import { runSealJob } from "../src/seal-job.ts";
import { cropRegions, dctHash, differenceHash, fingerprintOfGrey, greyPicture, pixelFacts } from "../src/provenance/fingerprint.ts";
import { type DecodedPicture, decodePicture } from "../src/thumbnail.ts";
import { compareFingerprints, DHASH_MAX_DISTANCE, hammingDistance, PHASH_MAX_DISTANCE, QUERY_CROP_LIMITS } from "../../shared/perceptual-fingerprint.ts";
import { sealContext } from "./support.ts";
import { job, written } from "./storage-stand-in.ts";
import { scene, VARIANTS } from "./scenes.ts";

/** As the seal job computes them: from the photo decoded once, for its thumbnail too. */
const factsOf = async (bytes: Uint8Array, type = "image/jpeg") => pixelFacts((await decodePicture(bytes, type))!);
const fingerprintOf = async (bytes: Uint8Array, type = "image/jpeg") => (await factsOf(bytes, type)).fingerprint;
/** The whole picture's fingerprint and its five crops', as the Worker stores them (docs/adr/0052). */
const storedPrints = async (bytes: Uint8Array) => {
  const facts = await factsOf(bytes);
  return [facts.fingerprint, ...facts.crops];
};

test("a photo re-encoded, resized, cropped or converted stays within the thresholds of the original or of a crop of it", async () => {
  for (const seed of [3, 11, 29]) {
    const photo = await scene(seed);
    const stored = await storedPrints(photo);
    assert.equal(stored.length, 6);
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const copy = await fingerprintOf(await variant(photo), name === "converted to PNG" ? "image/png" : "image/jpeg");
      const distances = stored.map((print) => compareFingerprints(print, copy));
      const closest = distances.sort((a, b) => a.phash - b.phash)[0]!;
      assert.ok(
        distances.some((distance) => distance.similar),
        `scene ${seed} ${name}: pHash ${closest.phash}/${PHASH_MAX_DISTANCE}, dHash ${closest.dhash}/${DHASH_MAX_DISTANCE}`,
      );
    }
  }
});

test("the four query prints are those of the picture with 5 % off its left, right, top and bottom edge", async () => {
  const picture = (await decodePicture(await scene(13, 800, 600), "image/jpeg"))!;
  const grey = await greyPicture(picture);
  const [width, height] = [Math.round(grey.width * 0.95), Math.round(grey.height * 0.95)];
  const regions = [
    { left: grey.width - width, top: 0, width, height: grey.height },
    { left: 0, top: 0, width, height: grey.height },
    { left: 0, top: grey.height - height, width: grey.width, height },
    { left: 0, top: 0, width: grey.width, height },
  ];
  const facts = await pixelFacts(picture);
  assert.deepEqual(
    facts.queryCrops,
    regions.map((region) => fingerprintOfGrey(grey, region)),
  );
  // Each one differs from the whole picture and the stored crops: a print of its own.
  for (const print of facts.queryCrops)
    assert.ok(![facts.fingerprint, ...facts.crops].some((stored) => stored.phash === print.phash && stored.dhash === print.dhash));
});

test("a copy cropped 5 % off one edge has a query print within the query crops' thresholds of a stored print", async () => {
  for (const seed of [3, 11]) {
    const photo = await scene(seed);
    const stored = await storedPrints(photo);
    const { width, height } = await sharp(photo).metadata();
    const [keptWidth, keptHeight] = [Math.round(width * 0.95), Math.round(height * 0.95)];
    const edges = {
      left: { left: width - keptWidth, top: 0, width: keptWidth, height },
      right: { left: 0, top: 0, width: keptWidth, height },
      top: { left: 0, top: height - keptHeight, width, height: keptHeight },
      bottom: { left: 0, top: 0, width, height: keptHeight },
    };
    for (const [edge, region] of Object.entries(edges)) {
      const copy = await factsOf(new Uint8Array(await sharp(photo).extract(region).jpeg({ quality: 90 }).toBuffer()));
      const distances = copy.queryCrops.flatMap((query) => stored.map((print) => compareFingerprints(query, print, QUERY_CROP_LIMITS)));
      const closest = distances.sort((a, b) => a.phash - b.phash)[0]!;
      assert.ok(
        distances.some((distance) => distance.similar),
        `scene ${seed}, 5 % off the ${edge}: pHash ${closest.phash}/${QUERY_CROP_LIMITS.phash}, dHash ${closest.dhash}/${QUERY_CROP_LIMITS.dhash}`,
      );
    }
  }
});

/**
 * A decoded photo made the same on every run (the scenes' noise is not seeded): shapes in colours and places
 * drawn from `seed` on a gradient, with seeded noise, 480×360 sRGB as decodePicture gives.
 */
async function seededPicture(seed: number): Promise<DecodedPicture> {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const colour = () => `rgb(${Math.floor(random() * 255)},${Math.floor(random() * 255)},${Math.floor(random() * 255)})`;
  const shapes = Array.from({ length: 6 + Math.floor(random() * 8) }, () => {
    const [x, y, rx, ry] = [random() * 480, random() * 360, 24 + random() * 96, 18 + random() * 72];
    return `<ellipse cx="${x}" cy="${y}" rx="${rx}" ry="${ry}" fill="${colour()}"/>`;
  }).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360"><defs><linearGradient id="g" x2="${random()}" y2="1"><stop offset="0" stop-color="${colour()}"/><stop offset="1" stop-color="${colour()}"/></linearGradient></defs><rect width="480" height="360" fill="url(#g)"/>${shapes}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  for (let at = 0; at < data.length; at++) data[at] = Math.min(255, Math.max(0, data[at]! + Math.round((random() + random() + random() - 1.5) * 24)));
  return { data, info };
}

/**
 * The whole picture's and five crops' prints as they were computed up to docs/adr/0058 and are stored from then:
 * each reduction a sharp pipeline of its own (cubic) from the 256 px grey picture. The grey picture and the crops'
 * regions are the sealer's own (`greyPicture`, `cropRegions`): only the reductions are under test.
 */
async function printsOfSharpReductions(picture: DecodedPicture) {
  const grey = await greyPicture(picture);
  const { width, height } = grey;
  const reduce = async (toWidth: number, toHeight: number, region: Region) =>
    new Uint8Array(
      await sharp(grey.pixels, { raw: { width, height, channels: 1 } })
        .extract(region)
        .resize(toWidth, toHeight, { fit: "fill", kernel: "cubic" })
        .extractChannel(0)
        .raw()
        .toBuffer(),
    );
  const regions = [{ left: 0, top: 0, width, height }, ...cropRegions(grey)];
  return Promise.all(regions.map(async (region) => ({ phash: dctHash(await reduce(32, 32, region)), dhash: differenceHash(await reduce(9, 8, region)) })));
}

test("the prints reduced in code stay within a few bits of those sharp reduced, which earlier photos are stored with", async () => {
  const moved: number[] = [];
  for (let seed = 1; seed <= 8; seed++) {
    const picture = await seededPicture(seed);
    const [before, facts] = [await printsOfSharpReductions(picture), await pixelFacts(picture)];
    for (const [index, print] of [facts.fingerprint, ...facts.crops].entries()) {
      const [phash, dhash] = [hammingDistance(print.phash, before[index]!.phash), hammingDistance(print.dhash, before[index]!.dhash)];
      assert.ok(phash <= 4 && dhash <= 8, `picture ${seed}, print ${index}: pHash moved ${phash} bits, dHash ${dhash}`);
      moved.push(dhash);
    }
  }
  const meanDhash = moved.reduce((sum, bits) => sum + bits, 0) / moved.length;
  assert.ok(meanDhash <= 3, `the dHash moved ${meanDhash.toFixed(2)} bits on average`);
});

test("distinct photos are not within the thresholds of one another, nor of one another's crops", async () => {
  const prints = await Promise.all(Array.from({ length: 16 }, async (_, index) => storedPrints(await scene(100 + index, 600, 450))));
  for (let a = 0; a < prints.length; a++) {
    for (let b = 0; b < prints.length; b++) {
      if (a === b) continue;
      for (const print of prints[b]!) {
        const distance = compareFingerprints(prints[a]![0]!, print);
        assert.ok(!distance.similar, `scenes ${100 + a} and ${100 + b}: pHash ${distance.phash}, dHash ${distance.dhash}`);
      }
    }
  }
});

test("the fingerprint is 64 bits each, and a video or HEIC has none", async () => {
  const print = await fingerprintOf(await scene(1, 400, 300));
  assert.match(print.phash, /^[0-9a-f]{16}$/);
  assert.match(print.dhash, /^[0-9a-f]{16}$/);
  assert.equal(await decodePicture(new Uint8Array(16), "video/mp4"), null);
  assert.equal(await decodePicture(new Uint8Array(16), "image/heic"), null);
});

test("sealing returns each photo's fingerprint and signs it among the observed facts", async () => {
  const photo = await scene(7, 800, 600);
  const result = await runSealJob(sealContext(), job([{ name: "scene.jpg", type: "image/jpeg", bytes: photo }]));
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const file = result.files[0]!;
  assert.deepEqual(file.fingerprint, await fingerprintOf(photo));
  assert.deepEqual(file.crop_fingerprints, (await storedPrints(photo)).slice(1));
  assert.deepEqual(file.query_crop_fingerprints, (await factsOf(photo)).queryCrops);
  assert.equal(file.query_crop_fingerprints.length, 4);
  const reading = await readC2pa(written.get(`/signed/${file.id}`)!, file.sniffed_type, result.c2pa_trust_anchor_pem);
  const assertions = (reading.activeManifest as { assertions: { label: string; data: { observed: { fingerprint: unknown } } }[] }).assertions;
  const capture = assertions.find((assertion) => assertion.label === "com.proofseal.capture")!.data;
  assert.deepEqual(capture.observed.fingerprint, file.fingerprint);
  // The query crops are looked up, not signed.
  assert.ok(!JSON.stringify(capture).includes(file.query_crop_fingerprints[0]!.phash));
  assert.ok(!file.signals.some((signal) => signal.code === "blank_frame" || signal.code === "image_smaller_than_declared"), JSON.stringify(file.signals));
});

test("a near-uniform photo is a blank frame", async () => {
  const grey = new Uint8Array(
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background: "#3a3a3a", noise: { type: "gaussian", mean: 58, sigma: 2 } } })
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
  const result = await runSealJob(sealContext(), job([{ name: "grey.jpg", type: "image/jpeg", bytes: grey }]));
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  assert.deepEqual(
    result.files[0]!.signals.map((signal) => signal.code),
    ["blank_frame"],
  );
});

test("a small picture enlarged to 2000 px weighs less than a camera's photo of that size", async () => {
  const small = await scene(5, 200, 150);
  const enlarged = new Uint8Array(await sharp(small).resize(2000, 1500).blur(3).jpeg({ quality: 70 }).toBuffer());
  const result = await runSealJob(sealContext(), job([{ name: "enlarged.jpg", type: "image/jpeg", bytes: enlarged }]));
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const signal = result.files[0]!.signals.find((candidate) => candidate.code === "image_smaller_than_declared");
  assert.ok(signal, `${enlarged.length} bytes: ${JSON.stringify(result.files[0]!.signals)}`);
  assert.match(signal.detail, /2000×1500 pixels \(decoded\)/);
});

test("a small photo declared 4000×3000 by the device weighs less than a camera's photo of that size", async () => {
  const small = await scene(6, 800, 600);
  const sealJob = job([{ name: "small.jpg", type: "image/jpeg", bytes: small }]);
  sealJob.files[0]!.capture_context = { method: "file", width: 4000, height: 3000 };
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const signal = result.files[0]!.signals.find((candidate) => candidate.code === "image_smaller_than_declared");
  assert.ok(signal, `${small.length} bytes: ${JSON.stringify(result.files[0]!.signals)}`);
  assert.match(signal.detail, /4000×3000 pixels \(declared\)/);
});
