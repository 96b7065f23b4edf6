import { test, afterEach } from "node:test";
import { createHash } from "node:crypto";
import assert from "node:assert/strict";
import sharp from "sharp";
import { runSealJob } from "../src/seal-job.ts";
import { decodePicture, decodingNow, makeThumbnail, THUMBNAIL_MAX_BYTES, THUMBNAIL_MAX_PX } from "../src/thumbnail.ts";
import { sealContext } from "./support.ts";
import { deleted, job, storageHooks, written } from "./storage-stand-in.ts";

afterEach(() => {
  delete storageHooks.onPut;
});

/** A photo in two halves, red and blue, with fine detail, far over 480 px (smaller than a phone's, to keep the test quick). */
async function largePhoto(options: { orientation?: number; gps?: boolean } = {}): Promise<Uint8Array> {
  const width = 2000;
  const height = 1500;
  const halves = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width / 2}" height="${height}" fill="#d22"/><rect x="${width / 2}" width="${width / 2}" height="${height}" fill="#22d"/></svg>`,
  );
  let picture = sharp(halves).composite([
    { input: { create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 20 } } }, blend: "soft-light" },
  ]);
  if (options.orientation) picture = picture.withMetadata({ orientation: options.orientation });
  if (options.gps) picture = picture.withExif({ IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 24/1" } });
  return new Uint8Array(await picture.jpeg({ quality: 90 }).toBuffer());
}

/** A thumbnail of a photo's bytes: decoded (as the seal job decodes each photo once), then made. */
const thumbnailOf = async (bytes: Uint8Array, type: string, mode: "test" | "live") => {
  const picture = await decodePicture(bytes, type);
  return picture && makeThumbnail(picture, mode);
};

const pixel = async (image: Uint8Array, x: number, y: number): Promise<[number, number, number]> => {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
};

test("sealing a large photo writes a WebP thumbnail of at most 480 px and 100 KB, made from the signed copy", async () => {
  const sealJob = job([{ name: "large.jpg", type: "image/jpeg", bytes: await largePhoto() }]);
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const file = result.files[0]!;
  const thumbnail = written.get(`/thumbnails/${file.id}`);
  assert.ok(thumbnail, "the thumbnail is written where the job said");
  // The SHA-256 of the bytes written: what the proof's record keeps, so that no other bytes pass for its picture.
  const sha256 = createHash("sha256").update(thumbnail).digest("hex");
  assert.deepEqual(file.thumbnail, { content_type: "image/webp", width: THUMBNAIL_MAX_PX, height: 360, size: thumbnail.length, sha256 });
  assert.ok(thumbnail.length <= THUMBNAIL_MAX_BYTES, `${thumbnail.length} bytes`);
  const meta = await sharp(thumbnail).metadata();
  assert.equal(meta.format, "webp");
  assert.deepEqual([meta.width, meta.height], [480, 360]);
  // Its pictures are the signed copy's: the same halves as the signed copy reduced independently.
  const signed = written.get(`/signed/${file.id}`)!;
  const reduced = new Uint8Array(await sharp(signed).resize(480).png().toBuffer());
  for (const [x, y] of [
    [60, 100],
    [420, 100],
  ] as const) {
    const [ours, theirs] = [await pixel(thumbnail, x, y), await pixel(reduced, x, y)];
    for (let channel = 0; channel < 3; channel++) assert.ok(Math.abs(ours[channel]! - theirs[channel]!) < 40, `(${x}, ${y}) ${ours} against ${theirs}`);
  }
  // Made from the pixels decoded before signing (once, with the fingerprints), it is byte for byte the
  // thumbnail the signed copy's own bytes give: C2PA signing adds a block and leaves the pixels alone.
  assert.deepEqual(thumbnail, (await thumbnailOf(signed, "image/jpeg", sealJob.proof.mode))!.bytes);
  assert.ok((await pixel(thumbnail, 60, 100))[0]! > 150, "red on the left");
  assert.ok((await pixel(thumbnail, 420, 100))[2]! > 150, "blue on the right");
});

test("a thumbnail is upright by the photo's EXIF orientation and carries none of its metadata (no location)", async () => {
  const made = await thumbnailOf(await largePhoto({ orientation: 6, gps: true }), "image/jpeg", "live");
  assert.ok(made);
  assert.deepEqual([made.meta.width, made.meta.height], [360, 480], "turned a quarter: portrait");
  const meta = await sharp(made.bytes).metadata();
  assert.equal(meta.exif, undefined);
  assert.equal(meta.orientation, undefined);
});

test("a small photo is not enlarged, and a test proof's thumbnail carries a TEST band that a live one does not", async () => {
  const photo = new Uint8Array(
    await sharp({ create: { width: 320, height: 240, channels: 3, background: "#2a7" } })
      .png()
      .toBuffer(),
  );
  const live = await thumbnailOf(photo, "image/png", "live");
  const testMode = await thumbnailOf(photo, "image/png", "test");
  assert.deepEqual([live?.meta.width, live?.meta.height], [320, 240]);
  const [r, g] = await pixel(testMode!.bytes, 5, 235);
  assert.ok(r > 120 && g < 60, `dark red band at the bottom: ${r}, ${g}`);
  const [lr, lg] = await pixel(live!.bytes, 5, 235);
  assert.ok(lr < 80 && lg > 120, `the photo itself in live mode: ${lr}, ${lg}`);
});

test("no thumbnail for what libvips cannot decode here (HEVC HEIC, videos): null, nothing written", async () => {
  const sealJob = job([
    { name: "photo.heic", type: "image/heic" },
    { name: "clip.mp4", type: "video/mp4" },
  ]);
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  for (const file of result.files) {
    assert.equal(file.thumbnail, null, file.sniffed_type);
    assert.equal(written.has(`/thumbnails/${file.id}`), false);
  }
});

test("a PNG that decodes to more than 64 Mpx gets no thumbnail (a small file can be a huge picture); the seal stands", async () => {
  const bomb = new Uint8Array(
    await sharp({ create: { width: 8000, height: 8200, channels: 3, background: "#2a7" } })
      .png({ compressionLevel: 9 })
      .toBuffer(),
  );
  assert.ok(bomb.length < 300_000, `${bomb.length} bytes`);
  assert.equal(await thumbnailOf(bomb, "image/png", "live"), null);
  const result = await runSealJob(sealContext(), job([{ name: "bomb.png", type: "image/png", bytes: bomb }]));
  assert.equal(result.status === "sealed" && result.files[0]!.thumbnail, null);
});

test("at most two pictures are decoded at once, however many thumbnails are asked for", async () => {
  const photo = await largePhoto();
  let most = 0;
  const sampler = setInterval(() => {
    most = Math.max(most, decodingNow());
  }, 1);
  const made = await Promise.all(Array.from({ length: 6 }, () => thumbnailOf(photo, "image/jpeg", "live")));
  clearInterval(sampler);
  assert.ok(made.every((thumbnail) => thumbnail !== null));
  assert.equal(most, 2);
  assert.equal(decodingNow(), 0);
});

test("a job that asks for no thumbnail gets none", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  delete sealJob.files[0]!.thumbnail;
  const result = await runSealJob(sealContext(), sealJob);
  assert.equal(result.status === "sealed" && result.files[0]!.thumbnail, null);
  assert.equal(written.has(`/thumbnails/${sealJob.files[0]!.id}`), false);
});

test("a job that stops after writing a thumbnail deletes it with the signed copy", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  const id = sealJob.files[0]!.id;
  const caller = new AbortController();
  storageHooks.onPut = (key) => {
    if (key.startsWith("/thumbnails/")) caller.abort();
  };
  await assert.rejects(runSealJob(sealContext(), sealJob, caller.signal));
  assert.ok(deleted.includes(`/thumbnails/${id}`), "thumbnail deleted");
  assert.ok(deleted.includes(`/signed/${id}`), "signed copy deleted");
  assert.equal(written.has(`/thumbnails/${id}`), false);
});
