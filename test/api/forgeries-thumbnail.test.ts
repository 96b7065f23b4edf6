import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { workerContext } from "../../src/domain/context.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { packagedArtifactKey, thumbnailKey } from "../../src/storage/objects/bucket.ts";
import { storeSealedRecord } from "../../src/storage/objects/sealed-records.ts";
import { proofRehashes } from "../../src/storage/sealed-object-checks.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { BUILT_IN_TEMPLATE } from "../../src/capture-templates/snapshot.ts";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { captureCall, tokenOf } from "./support/capture.ts";
import { createOrganization } from "./support/factories.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { createSession } from "./support/sessions.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";
import { V2_CHAIN_PEM, V2_FILES } from "./fixtures/sealed-proof-v2.ts";

/**
 * Forger session 7, G6: an insider with write access to the bucket replaces a proof's thumbnail. Since sealer protocol
 * 12 the record (bound by `proofs.sealed_record_sha256`) keeps each thumbnail's SHA-256: other bytes are never served
 * as the proof's picture (no ETag, no caching, `Sealed-File-Status: altered`), the re-hash finds them and the page then
 * shows no picture; a thumbnail named outside the proof's own run is refused whatever its record (G14's note).
 */
const [first, second] = [V2_FILES[0].id, V2_FILES[1].id];
const thumbnailPath = (proofId: string, fileId: string) => `/v1/public/proofs/${proofId}/files/${fileId}/thumbnail`;
const IMMUTABLE = "public, max-age=31536000, immutable";
const FULL_BUDGET = { objects: 10_000, bytes: 1 << 30, proofs: 10_000 };
/** A WebP header and a payload of its own per file: each thumbnail has its own SHA-256. */
const webp = (fileId: string) => new Uint8Array([...new TextEncoder().encode("RIFF\x1a\x00\x00\x00WEBPVP8L"), ...new TextEncoder().encode(fileId)]);
let clock = Date.now();
const nextHour = () => {
  clock += 3_600_000;
  return new Date(clock);
};

afterEach(async () => {
  vi.restoreAllMocks();
  // The fixture's files have fixed ids: a proof left with its rows would keep the next one from inserting them.
  await env.DB.prepare("DELETE FROM files WHERE id IN (?, ?)").bind(first, second).run();
});

/** The genuine version-2 proof as sealing leaves it since protocol 12: its thumbnails' SHA-256 in its record, bound by D1. */
async function boundWithThumbnails() {
  const { proofId, run } = await storedGenuineV2Proof();
  const thumbnails = new Map<string, { key: string; bytes: Uint8Array; sha256: string }>();
  for (const { id } of V2_FILES) {
    const bytes = webp(id);
    const key = thumbnailKey(proofId, run, id);
    const sha256 = await sha256Hex(bytes);
    await env.FILES.put(key, bytes);
    const thumbnail = { content_type: "image/webp", width: 480, height: 360, size: bytes.length, sha256, key };
    await env.DB.prepare("UPDATE files SET thumbnail = ? WHERE id = ?").bind(JSON.stringify(thumbnail), id).run();
    thumbnails.set(id, { key, bytes, sha256 });
  }
  const recordSha256 = await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
  await env.DB.batch([
    env.DB.prepare("UPDATE proofs SET sealed_record = 2, sealed_record_sha256 = ? WHERE id = ?").bind(recordSha256, proofId),
    env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
  ]);
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/c2pa-1.pem"), V2_CHAIN_PEM);
  return { proofId, run, thumbnails };
}

/** The answer given to bytes that are not the sealed thumbnail: a problem, never kept, saying it is altered. */
async function expectRefused(response: Response, forged?: Uint8Array) {
  expect(response.status).toBe(409);
  expect(response.headers.get("Content-Type")).toContain("application/problem+json");
  expect(response.headers.get("ETag")).toBeNull();
  expect(response.headers.get("Cache-Control")).toBe("no-store");
  expect(response.headers.get("Sealed-File-Status")).toBe("altered");
  const body = await response.text();
  expect(JSON.parse(body).code).toBe("thumbnail_altered");
  if (forged) expect(body).not.toContain(new TextDecoder().decode(forged));
}

const tileOf = (html: string, fileId: string) => ({
  picture: html.includes(`data-testid="thumbnail-${fileId}"`),
  noPreview: html.includes(`data-testid="no-preview-${fileId}"`),
});

describe("a thumbnail whose SHA-256 the bound record keeps", () => {
  it("genuine: served with its ETag, cacheable for a year, 304 when the client has it; the re-hash finds nothing", async () => {
    const { proofId, thumbnails } = await boundWithThumbnails();
    const served = await call(thumbnailPath(proofId, first));
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(thumbnails.get(first)!.bytes);
    expect(served.headers.get("Content-Type")).toBe("image/webp");
    expect(served.headers.get("Content-Length")).toBe(String(thumbnails.get(first)!.bytes.length));
    expect(served.headers.get("Cache-Control")).toBe(IMMUTABLE);
    expect(served.headers.get("Sealed-File-Status")).toBeNull();
    const etag = served.headers.get("ETag")!;
    expect(etag).toBe(`"thumb-${V2_FILES[0].signed_sha256}"`);
    const again = await call(thumbnailPath(proofId, first), { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    await again.arrayBuffer();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextHour(), FULL_BUDGET);
    expect((await proofRehashes(env.DB, proofId)).findings).toEqual([]);
    const { body } = await callJson(`/v1/public/proofs/${proofId}?probe=${crypto.randomUUID()}`);
    expect(body.files.map((file: { thumbnail_url: string | null }) => file.thumbnail_url !== null)).toEqual([true, true]);
  });

  it("replaced by other bytes: refused as altered (never the genuine ETag, never cached), even to a client naming its ETag", async () => {
    const { proofId, thumbnails } = await boundWithThumbnails();
    const forged = new TextEncoder().encode("RIFF\x1a\x00\x00\x00WEBPVP8L another picture");
    await env.FILES.put(thumbnails.get(first)!.key, forged);
    await expectRefused(await call(thumbnailPath(proofId, first)), forged);
    await expectRefused(await call(thumbnailPath(proofId, first), { headers: { "If-None-Match": `"thumb-${V2_FILES[0].signed_sha256}"` } }), forged);
    // More than a thumbnail weighs: refused without its body being read.
    await env.FILES.put(thumbnails.get(first)!.key, new Uint8Array(100 * 1024 + 1));
    await expectRefused(await call(thumbnailPath(proofId, first)));
    // The other file's thumbnail is still served as sealed.
    const other = await call(thumbnailPath(proofId, second));
    expect(other.status).toBe(200);
    expect(new Uint8Array(await other.arrayBuffer())).toEqual(thumbnails.get(second)!.bytes);
    expect(other.headers.get("Cache-Control")).toBe(IMMUTABLE);
  });

  it("deleted: 404 thumbnail_not_found, never kept", async () => {
    const { proofId, thumbnails } = await boundWithThumbnails();
    await env.FILES.delete(thumbnails.get(first)!.key);
    const { status, body, headers } = await callJson(thumbnailPath(proofId, first));
    expect([status, body.code]).toEqual([404, "thumbnail_not_found"]);
    expect(headers.get("ETag")).toBeNull();
    expect(headers.get("Cache-Control")).toBe("no-store");
  });

  it("replaced: the re-hash records a finding of its own and alerts; the page then shows no picture for it, the verdict unchanged", async () => {
    const { proofId, thumbnails } = await boundWithThumbnails();
    const before = await call(`/p/${proofId}?lang=en`);
    const genuinePage = await before.text();
    expect(tileOf(genuinePage, first)).toEqual({ picture: true, noPreview: false });
    const forged = new TextEncoder().encode("RIFF\x1a\x00\x00\x00WEBPVP8L another picture");
    await env.FILES.put(thumbnails.get(first)!.key, forged);
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextHour(), FULL_BUDGET);
    const findings = (await proofRehashes(env.DB, proofId)).findings;
    expect(findings).toEqual([
      expect.objectContaining({
        objectKey: thumbnails.get(first)!.key,
        entry: `thumbnails/${first}.webp`,
        fileId: null,
        expectedSha256: thumbnails.get(first)!.sha256,
        foundSha256: await sha256Hex(forged),
        matched: false,
      }),
    ]);
    expect(alerts.mock.calls.some(([line]) => String(line).includes(`"key":"${thumbnails.get(first)!.key}"`))).toBe(true);
    const { body } = await callJson(`/v1/public/proofs/${proofId}?probe=${crypto.randomUUID()}`);
    const urls = new Map(body.files.map((file: { id: string; thumbnail_url: string | null }) => [file.id, file.thumbnail_url]));
    expect(urls.get(first)).toBeNull();
    expect(urls.get(second)).toMatch(/\/thumbnail$/);
    // Not in the manifest: the sealed files are intact, so the verdict stands; the picture is what is withdrawn.
    expect(body.verification.verdict).toBe("verified");
    const html = await (await call(`/p/${proofId}?lang=en`)).text();
    expect(html).toContain('data-verdict="verified"');
    expect(tileOf(html, first)).toEqual({ picture: false, noPreview: true });
    expect(tileOf(html, second)).toEqual({ picture: true, noPreview: false });
    // Restored: served again, and the next re-hash clears the finding.
    await env.FILES.put(thumbnails.get(first)!.key, thumbnails.get(first)!.bytes);
    expect((await call(thumbnailPath(proofId, first))).status).toBe(200);
    await rehashSealedObjects(workerContext(env), nextHour(), FULL_BUDGET);
    expect((await proofRehashes(env.DB, proofId)).findings).toEqual([]);
  });
});

describe("a thumbnail named outside the proof's own run (G14's note)", () => {
  it.each([
    { label: "another proof's thumbnail", elsewhere: (other: string) => thumbnailKey(other, "run_x", first) },
    { label: "an original under captures/", elsewhere: () => `captures/ses_x/${first}` },
    {
      label: "a name of its own in the run's folder",
      elsewhere: (_: string, proofId: string, run: string) => `proofs/${proofId}/runs/${run}/thumbnails/x.webp`,
    },
  ])("$label, named by a file's row: refused as altered, never shown on the page", async ({ elsewhere }) => {
    const { proofId, run } = await storedGenuineV2Proof();
    const key = elsewhere(`prf_${crypto.randomUUID().replaceAll("-", "").slice(0, 22)}`, proofId, run);
    const planted = new TextEncoder().encode("RIFF\x1a\x00\x00\x00WEBPVP8L someone else's picture");
    await env.FILES.put(key, planted);
    const thumbnail = { content_type: "image/webp", width: 1, height: 1, size: planted.length, key };
    await env.DB.prepare("UPDATE files SET thumbnail = ? WHERE id = ?").bind(JSON.stringify(thumbnail), first).run();
    await expectRefused(await call(thumbnailPath(proofId, first)), planted);
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(body.files.find((file: { id: string }) => file.id === first).thumbnail_url).toBeNull();
    expect(tileOf(await (await call(`/p/${proofId}?lang=en`)).text(), first)).toEqual({ picture: false, noPreview: true });
  });
});

describe("an after's view of its before's thumbnails", () => {
  it("serves a before's thumbnail only as its record keeps it, and none named outside the before's run", async () => {
    const org = await createOrganization();
    const before = await insertPendingProof(org.id, "test", 3);
    await env.DB.prepare("UPDATE proofs SET status = 'sealed' WHERE id = ?").bind(before.proofId).run();
    await setSessionSnapshot(before.sessionId, JSON.stringify(BUILT_IN_TEMPLATE));
    const [genuine, replaced, outside] = before.fileIds as [string, string, string];
    const stored = new Map<string, Uint8Array>();
    for (const fileId of before.fileIds) {
      const bytes = webp(fileId);
      stored.set(fileId, bytes);
      const key = fileId === outside ? `proofs/${before.proofId}/elsewhere/${fileId}.webp` : thumbnailKey(before.proofId, null, fileId);
      await env.FILES.put(key, bytes);
      const thumbnail = { content_type: "image/webp", width: 480, height: 360, size: bytes.length, sha256: await sha256Hex(bytes), key };
      await env.DB.prepare("UPDATE files SET thumbnail = ? WHERE id = ?").bind(JSON.stringify(thumbnail), fileId).run();
    }
    await env.FILES.put(thumbnailKey(before.proofId, null, replaced), new TextEncoder().encode("another picture"));
    const proof = await env.DB.prepare("SELECT external_reference FROM proofs WHERE id = ?").bind(before.proofId).first<{ external_reference: string }>();
    const after = await createSession(org.testKey, { external_reference: proof!.external_reference, party: "provider", compare_to: before.proofId });
    const token = tokenOf(after.body.capture_url);
    const listed = (await captureCall(token, "/session")).body.before_thumbnails.map((thumbnail: { url: string }) => thumbnail.url);
    expect(listed).not.toContain(`${CAPTURE}/c/${token}/before/${outside}`);
    expect(listed).toHaveLength(2);
    const served = await call(`${CAPTURE}/c/${token}/before/${genuine}`);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(stored.get(genuine));
    expect((await callJson(`${CAPTURE}/c/${token}/before/${replaced}`)).body).toMatchObject({ status: 409, code: "thumbnail_altered" });
    expect((await callJson(`${CAPTURE}/c/${token}/before/${outside}`)).body).toMatchObject({ status: 404, code: "capture_file_not_found" });
  });
});
