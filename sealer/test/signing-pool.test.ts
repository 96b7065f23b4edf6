import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { readC2pa } from "../src/c2pa/c2pa.ts";
import { SigningFailedError, SigningPool, SigningThreadError } from "../src/c2pa/signing-pool.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";
import { TimestampUnavailableError } from "../src/tsa/authority.ts";
import { runSealJob } from "../src/seal-job.ts";
import { fixture, sealContext } from "./support.ts";
import { job } from "./storage-stand-in.ts";

const context = sealContext();
const pool = new SigningPool(2);
after(() => pool.close());
const definition = {
  title: "med_1",
  format: "image/jpeg",
  assertions: [
    {
      label: "c2pa.actions",
      data: { actions: [{ action: "c2pa.created", digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture" }] },
    },
  ],
};
const request = (bytes: Uint8Array, timestamp: ((message: Uint8Array) => Promise<Uint8Array>) | null) => ({
  bytes,
  definition,
  key: context.key,
  chainDer: context.chainDer,
  timestamp,
});
const authorityToken = async (message: Uint8Array) => (await obtainTimestamp(context.authority, message)).token;
const forever = () => new Promise<Uint8Array>(() => undefined);

test("signs on a thread: a Trusted copy with its own SHA-256 and CRC-32, the timestamp asked of the calling thread, the original handed over", async () => {
  const original = fixture("photo.jpg").slice();
  let asked = 0;
  const timestamp = async (message: Uint8Array) => {
    asked++;
    return authorityToken(message);
  };
  const copy = await pool.sign(request(original, timestamp), AbortSignal.timeout(30_000));
  assert.equal(asked, 1);
  assert.equal(original.byteLength, 0, "transferred to the thread, not copied");
  assert.equal(copy.sha256, createHash("sha256").update(copy.bytes).digest("hex"));
  assert.equal(copy.crc32, crc32(copy.bytes));
  const reading = await readC2pa(copy.bytes, "image/jpeg", context.trustAnchorPem);
  assert.equal(reading.state, "Trusted");
  assert.ok(reading.codes.includes("timeStamp.validated"));
});

test("bytes c2pa-rs cannot sign reject with SigningFailedError", async () => {
  await assert.rejects(pool.sign(request(new TextEncoder().encode("not a JPEG at all"), null), AbortSignal.timeout(30_000)), SigningFailedError);
});

test("a failed timestamp is reported as its own error, not as c2pa-rs's rendering of it", async () => {
  const down = new TimestampUnavailableError("authority down");
  await assert.rejects(
    pool.sign(
      request(fixture("photo.jpg").slice(), async () => Promise.reject(down)),
      AbortSignal.timeout(30_000),
    ),
    (error) => error === down,
  );
});

test("an abort while the thread waits for its timestamp rejects at once with the abort's reason, and the pool signs on", async () => {
  const controller = new AbortController();
  const reason = new Error("the job's deadline passed");
  setTimeout(() => controller.abort(reason), 200);
  const started = Date.now();
  await assert.rejects(pool.sign(request(fixture("photo.jpg").slice(), forever), controller.signal), (error) => error === reason);
  assert.ok(Date.now() - started < 10_000);
  const copy = await pool.sign(request(fixture("photo.jpg").slice(), null), AbortSignal.timeout(30_000));
  assert.ok(copy.bytes.length > fixture("photo.jpg").length);
});

test("closing the pool stops its threads: the file under way and any later one reject with SigningThreadError", async () => {
  const closing = new SigningPool(1);
  const underway = closing.sign(request(fixture("photo.jpg").slice(), forever), AbortSignal.timeout(30_000));
  await new Promise((done) => setTimeout(done, 200));
  await closing.close();
  await assert.rejects(underway, SigningThreadError);
  await assert.rejects(closing.sign(request(fixture("photo.jpg").slice(), null), AbortSignal.timeout(30_000)), SigningThreadError);
});

test("a file that passes verification but that c2pa-rs cannot sign fails the proof with file_corrupt", async () => {
  // A RIFF/WEBP container of the right length whose first chunk claims more bytes than the file holds.
  const bytes = new Uint8Array(64);
  bytes.set(new TextEncoder().encode("RIFF"), 0);
  new DataView(bytes.buffer).setUint32(4, bytes.length - 8, true);
  bytes.set(new TextEncoder().encode("WEBPVP8 "), 8);
  new DataView(bytes.buffer).setUint32(16, 1000, true);
  const result = await runSealJob(sealContext(), job([{ name: "x", type: "image/webp", bytes }]));
  assert.equal(result.status === "failed" && result.code, "file_corrupt");
});
