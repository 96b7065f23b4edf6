import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import * as pkijs from "pkijs";
import { packagedArtifactKey, proofArtifactKeys, sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { storeSealedRecord } from "../../src/storage/objects/sealed-records.ts";
import { READ_LIMITS } from "../../src/storage/objects/bounded-read.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { sealedWithBoundRecord, storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { V2_CHAIN_PEM, V2_FILES } from "./fixtures/sealed-proof-v2.ts";
import { MAX_CHAIN_CERTIFICATES, pemCertificatesDer } from "../../shared/timestamp-check.ts";
import { rootFingerprints } from "../../shared/trust-anchors.ts";

/**
 * Forger session 7's findings G13, G11 and G10: an insider with write access to the bucket makes an object a proof's
 * routes read not what sealing wrote (a record of the wrong shape, an object too large to read, a revocation index or
 * trust anchor that does not parse). Every route answers what was observed, never a 5xx and never `verified`.
 */
type RecordEdit = (record: { files: Record<string, any>; file_order?: unknown[] }) => void;

let address = 0;
const lookUp = (body: Record<string, string>) =>
  callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `198.51.100.${++address % 250}` } });

/**
 * The genuine version-2 proof of a fresh organization with its record as `version` says (1: facts only, the rows in
 * D1, as production holds today; 2: whole files), no SHA-256 of it in D1 (sealed before migration 0028), then edited.
 */
async function recordWithoutHash(version: 1 | 2, edit: RecordEdit) {
  const { proofId, run } = await storedGenuineV2Proof();
  await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
  const owner = await createOrganization();
  await env.DB.prepare("UPDATE proofs SET sealed_record = ?, sealed_record_sha256 = NULL, organization_id = ? WHERE id = ?")
    .bind(version, owner.id, proofId)
    .run();
  if (version === 2) await env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId).run();
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/c2pa-1.pem"), V2_CHAIN_PEM);
  const key = sealedRecordKey(proofId, run);
  const record = await (await env.FILES.get(key))!.json<Parameters<RecordEdit>[0]>();
  edit(record);
  await env.FILES.put(key, JSON.stringify(record));
  return { proofId, run, ownerKey: owner.testKey };
}

const first = V2_FILES[0].id;
/** What each edit is: not of the record's shape (`unreadable`), or a record lacking a file of the proof (`altered`). */
const RECORD_EDITS: { label: string; version: 1 | 2; edit: RecordEdit; fault?: "altered" }[] = [
  { label: "an entry null", version: 1, edit: (record) => Object.assign(record.files, { [first]: null }) },
  { label: "an entry a number", version: 1, edit: (record) => Object.assign(record.files, { [first]: 5 }) },
  { label: "signals a string", version: 1, edit: (record) => Object.assign(record.files[first], { signals: "x" }) },
  { label: "decoded a string", version: 1, edit: (record) => Object.assign(record.files[first], { decoded: "x" }) },
  { label: "the capture context a string", version: 1, edit: (record) => Object.assign(record.files[first], { captureContext: "x" }) },
  { label: "a reported place of strings", version: 1, edit: (record) => Object.assign(record.files[first], { captureContext: { geolocation: "x" } }) },
  { label: "a thumbnail key a number", version: 1, edit: (record) => Object.assign(record.files[first], { thumbnail: { key: 5 } }) },
  { label: "an entry null", version: 2, edit: (record) => Object.assign(record.files, { [first]: null }) },
  { label: "createdAt a number", version: 2, edit: (record) => Object.assign(record.files[first], { createdAt: 5, capturedAt: null }) },
  { label: "file_order naming an inherited key", version: 2, edit: (record) => void record.file_order?.push("constructor"), fault: "altered" },
];

afterEach(async () => {
  vi.restoreAllMocks();
  // The fixture's file ids are fixed: the next fixture proof stores its rows under them.
  await env.DB.prepare("DELETE FROM files WHERE id IN (?, ?)")
    .bind(V2_FILES[0].id, V2_FILES[1]?.id ?? V2_FILES[0].id)
    .run();
});

describe.each(RECORD_EDITS)("a record without its hash in D1 (version $version), $label (G13)", ({ version, edit, fault = "unreadable" }) => {
  it("is said: the public JSON and the page say not verified, no file shown", async () => {
    const { proofId } = await recordWithoutHash(version, edit);
    const answer = await callJson(`/v1/public/proofs/${proofId}`);
    expect(answer.status).toBe(200);
    expect(answer.body.files).toEqual([]);
    expect(answer.body.verification.verdict).toBe("not_verified");
    expect(answer.body.verification.checks).toContainEqual(
      expect.objectContaining({ name: "files_record", result: "fail", detail: expect.stringContaining(fault === "altered" ? "altered" : "cannot be read") }),
    );
    const page = await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-verdict="not_verified"');
    expect(html).toContain('data-testid="files-record-unavailable"');
  });

  it("the file and the package answer 409, the look-up never a 5xx nor valid", async () => {
    const { proofId } = await recordWithoutHash(version, edit);
    for (const path of [`/v1/public/proofs/${proofId}/files/${first}`, `/v1/public/proofs/${proofId}/package`]) {
      const answer = await callJson(path);
      expect(answer.status, path).toBe(409);
      expect(answer.body.code, path).toBe("sealed_record_unavailable");
    }
    const found = await lookUp({ sha256: V2_FILES[0].signed_sha256, proof_id: proofId });
    expect(found.status).toBe(200);
    for (const match of found.body.data) expect(match.verification.status).not.toBe("valid");
  });

  it("the owner's proof and list page say which, the list never hidden", async () => {
    const { proofId, ownerKey } = await recordWithoutHash(version, edit);
    const read = await callJson(`/v1/proofs/${proofId}`, { key: ownerKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ files: [], files_record: fault });
    const list = await callJson("/v1/proofs", { key: ownerKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: proofId, files: [], files_record: fault })]);
  });
});

describe("a record without its hash in D1, of its shape (G13)", () => {
  it.each([1, 2] as const)("version %i reads as before: verified, its files listed", async (version) => {
    const { proofId } = await recordWithoutHash(version, () => undefined);
    const answer = await callJson(`/v1/public/proofs/${proofId}`);
    expect(answer.body.verification.verdict).toBe("verified");
    expect(answer.body.files.map((file: { id: string }) => file.id)).toEqual(V2_FILES.map((file) => file.id));
  });
});

/** Every public route presenting the proof answers, never a 5xx nor `verified`; the verdict's checks for the caller to judge. */
async function answeredNotVerified(proofId: string) {
  const json = await callJson(`/v1/public/proofs/${proofId}`);
  expect(json.status).toBe(200);
  expect(json.body.verification.verdict).toBe("not_verified");
  const page = await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('data-verdict="not_verified"');
  const zip = await call(`/v1/public/proofs/${proofId}/package`);
  expect(zip.status).toBe(200);
  expect((await zip.arrayBuffer()).byteLength).toBeGreaterThan(0);
  const found = await lookUp({ sha256: V2_FILES[0].signed_sha256, proof_id: proofId });
  expect(found.status).toBe(200);
  for (const match of found.body.data) expect(match.verification.status).not.toBe("valid");
  return json.body;
}

const check = (body: { verification: { checks: { name: string }[] } }, name: string) => body.verification.checks.find((one) => one.name === name);

describe("the revocation index replaced by what is not one (G10)", () => {
  it.each(["not json", '[{"chain":"x"}]', "null"])("%s: the revocation check fails, every route answers", async (content) => {
    const { proofId, run } = await sealedWithBoundRecord();
    await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/index.json"), content);
    const body = await answeredNotVerified(proofId);
    expect(check(body, "revocation")).toMatchObject({ result: "fail" });
    expect(body.revocation).toBeNull();
  });
});

describe("the trust anchor or the authority's chain replaced by junk (G10)", () => {
  const junk = ["-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"];
  it.each(junk)("c2pa-trust-anchor.pem %j: no service root, the seal's check fails, every route answers", async (pem) => {
    const { proofId, run } = await sealedWithBoundRecord();
    await env.FILES.put(proofArtifactKeys(proofId, run).c2paTrustAnchor, pem);
    const body = await answeredNotVerified(proofId);
    expect(body.trust_anchors.c2pa_root_sha256).toBeNull();
    expect(check(body, "manifest_seal")).toMatchObject({ result: "fail" });
  });

  it.each(junk)("chain.pem %j: the timestamp's chain fails, every route answers", async (pem) => {
    const { proofId, run } = await sealedWithBoundRecord();
    await env.FILES.put(proofArtifactKeys(proofId, run).timestampChain, pem);
    const body = await answeredNotVerified(proofId);
    expect(body.trust_anchors.timestamp_authority_root_sha256).toBeNull();
    expect(check(body, "timestamp_chain")).toMatchObject({ result: "fail" });
  });
});

/** `bytes` followed by spaces up to one byte above `limit`: still the same JSON, larger than sealing ever writes. */
function padded(bytes: Uint8Array, limit: number): Uint8Array {
  const out = new Uint8Array(limit + 1).fill(0x20);
  out.set(bytes);
  return out;
}

describe("an object larger than sealing ever writes is never read (G11)", () => {
  it.each([
    { version: 1, hashInD1: false },
    { version: 2, hashInD1: false },
    { version: 2, hashInD1: true },
  ] as const)("record.json (version $version, its hash in D1: $hashInD1), the same JSON padded: unreadable", async ({ version, hashInD1 }) => {
    const { proofId, run, ownerKey } = await recordWithoutHash(version, () => undefined);
    const key = sealedRecordKey(proofId, run);
    if (hashInD1) {
      const genuine = new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer());
      const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", genuine))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
      await env.DB.prepare("UPDATE proofs SET sealed_record_sha256 = ? WHERE id = ?").bind(digest, proofId).run();
    }
    await env.FILES.put(key, padded(new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer()), READ_LIMITS.sealedRecord));
    const answer = await callJson(`/v1/public/proofs/${proofId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ files: [], verification: { verdict: "not_verified" } });
    expect(check(answer.body, "files_record")).toMatchObject({ result: "fail", detail: expect.stringContaining("cannot be read") });
    expect((await call(`/p/${proofId}`, { headers: { Accept: "text/html" } })).status).toBe(200);
    const list = await callJson("/v1/proofs", { key: ownerKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: proofId, files_record: "unreadable" })]);
  });

  it("manifest.json padded: read as the sealed one missing, every route answers", async () => {
    const { proofId, run } = await sealedWithBoundRecord();
    const key = proofArtifactKeys(proofId, run).manifest;
    await env.FILES.put(key, padded(new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer()), READ_LIMITS.manifest));
    const body = await answeredNotVerified(proofId);
    expect(check(body, "package_complete")).toMatchObject({ result: "fail", detail: expect.stringContaining("missing: manifest.json") });
  });

  it("revocation/index.json padded: unreadable, the revocation check fails", async () => {
    const { proofId, run } = await sealedWithBoundRecord();
    const key = packagedArtifactKey(proofId, run, "revocation/index.json");
    await env.FILES.put(key, padded(new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer()), READ_LIMITS.artifact));
    const body = await answeredNotVerified(proofId);
    expect(body.revocation).toBeNull();
    expect(check(body, "revocation")).toMatchObject({ result: "fail" });
  });
});

/** Bytes a browser would run as a document of the service's origin, under each type a thumbnail may not have (G14). */
const DOCUMENTS = [
  { type: "text/html", bytes: "<script>alert(document.domain)</script>" },
  { type: "image/svg+xml", bytes: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>' },
  { type: "application/javascript", bytes: "alert(document.domain)" },
];
const STORED_BYTES_CSP = "default-src 'none'; sandbox";
const thumbnailPath = (proofId: string) => `/v1/public/proofs/${proofId}/files/${first}/thumbnail`;

describe("a thumbnail of another type than the sealer makes (G14)", () => {
  it.each(DOCUMENTS.flatMap((document) => [1, 2].map((version) => ({ ...document, version: version as 1 | 2 }))))(
    "$type in a record without its hash (version $version): unreadable, the thumbnail a 409, never the document",
    async ({ type, bytes, version }) => {
      const key = `planted/${crypto.randomUUID()}.html`;
      await env.FILES.put(key, bytes);
      const { proofId } = await recordWithoutHash(version, (record) =>
        Object.assign(record.files[first], { thumbnail: { key, content_type: type, width: 1, height: 1, size: bytes.length } }),
      );
      const served = await call(thumbnailPath(proofId));
      expect(served.status).toBe(409);
      expect(served.headers.get("Content-Type")).toContain("application/problem+json");
      const body = await served.json<{ code: string }>();
      expect(body.code).toBe("sealed_record_unavailable");
      const answer = await callJson(`/v1/public/proofs/${proofId}`);
      expect(answer.body.verification.verdict).toBe("not_verified");
      expect(check(answer.body, "files_record")).toMatchObject({ result: "fail", detail: expect.stringContaining("cannot be read") });
    },
  );

  it.each(DOCUMENTS)("$type named by a file's row: served as WebP, unsniffed, sandboxed", async ({ type, bytes }) => {
    const { proofId, run } = await storedGenuineV2Proof();
    const key = `proofs/${proofId}/runs/${run}/thumbnails/${first}.webp`;
    await env.FILES.put(key, bytes);
    await env.DB.prepare("UPDATE files SET thumbnail = ? WHERE id = ?")
      .bind(JSON.stringify({ key, content_type: type, width: 1, height: 1, size: bytes.length }), first)
      .run();
    const served = await call(thumbnailPath(proofId));
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    expect(served.headers.get("Content-Type")).toBe("image/webp");
    expect(served.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(served.headers.get("Content-Security-Policy")).toBe(STORED_BYTES_CSP);
  });

  it("a genuine signed file keeps its sealed type, unsniffed and sandboxed", async () => {
    const { proofId } = await sealedWithBoundRecord();
    const served = await call(`/v1/public/proofs/${proofId}/files/${first}`);
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    expect(served.headers.get("Content-Type")).toBe("image/jpeg");
    expect(served.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(served.headers.get("Content-Security-Policy")).toBe(STORED_BYTES_CSP);
  });
});

describe("a chain or trust anchor of thousands of certificates (G15)", () => {
  const repeated = V2_CHAIN_PEM.repeat(1500);

  it("holds none past the bound: never parsed, the genuine chain still read", async () => {
    expect(pemCertificatesDer(repeated, MAX_CHAIN_CERTIFICATES)).toEqual([]);
    expect(await rootFingerprints(repeated)).toEqual([]);
    expect(pemCertificatesDer(V2_CHAIN_PEM, MAX_CHAIN_CERTIFICATES).length).toBeGreaterThan(0);
    expect(await rootFingerprints(V2_CHAIN_PEM)).toHaveLength(1);
  });

  it("both stored: the seal's and the timestamp's checks fail, every route answers, few certificates parsed", async () => {
    const { proofId, run } = await sealedWithBoundRecord();
    const keys = proofArtifactKeys(proofId, run);
    await env.FILES.put(keys.c2paTrustAnchor, repeated);
    await env.FILES.put(keys.timestampChain, repeated);
    const parsed = vi.spyOn(pkijs.Certificate, "fromBER");
    const body = await answeredNotVerified(proofId);
    expect(body.trust_anchors).toEqual({ timestamp_authority_root_sha256: null, c2pa_root_sha256: null });
    expect(check(body, "timestamp_chain")).toMatchObject({ result: "fail" });
    expect(check(body, "manifest_seal")).toMatchObject({ result: "fail" });
    const file = await call(`/v1/public/proofs/${proofId}/files/${first}`);
    expect(file.status).toBeLessThan(500);
    await file.arrayBuffer();
    // The genuine chain repeated is 3,000 certificates a read; the bound parses none of them.
    expect(parsed.mock.calls.length).toBeLessThan(100);
  });
});
