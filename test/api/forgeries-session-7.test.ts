import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { workerContext } from "../../src/domain/context.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { artifactHashesKey, packagedArtifactKey, proofArtifactKeys, sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { storeSealedRecord } from "../../src/storage/objects/sealed-records.ts";
import { proofRehashes } from "../../src/storage/sealed-object-checks.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { PAGE_LANGUAGES, PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import type { FileRow } from "../../src/storage/rows.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization, type TestOrganization } from "./support/factories.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { V2_CHAIN_PEM, V2_FILES, V2_MANIFEST_SHA256 } from "./fixtures/sealed-proof-v2.ts";

/**
 * Forger session 7 on the sealed record's failures made visible (c9b1300) and the re-hash's expected hashes (bb10a69):
 * an insider with write access to the bucket swaps, reorders or edits record.json while D1 holds its SHA-256, replaces
 * the manifest with every unsigned object beside it, and anyone asks the routes that refuse a lost record with HEAD,
 * conditional and range requests, in every page language, or with odd ids. Each attack here is refused; the ones
 * that are not are written in /tmp/team/forger-findings-7.md.
 */
const text = (value: string) => new TextEncoder().encode(value);
const byName = (checks: { name: string; result: string }[]) => Object.fromEntries(checks.map((check) => [check.name, check.result]));
const FORGED_TIME = "2020-01-01T00:00:00.000Z";
let clock = Date.now();
const nextHour = () => {
  clock += 3_600_000;
  return new Date(clock);
};

afterEach(() => vi.restoreAllMocks());

/**
 * The genuine version-2 proof with its files in its record alone and the record's SHA-256 in D1, as sealing leaves it
 * since migration 0028, owned by `owner` (a fresh organization unless given).
 */
async function sealedWithBoundRecord(owner?: TestOrganization) {
  const stored = await storedGenuineV2Proof();
  const { proofId, run } = stored;
  const organization = owner ?? (await createOrganization());
  const sha256 = await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
  await env.DB.batch([
    env.DB.prepare("UPDATE proofs SET sealed_record = 2, sealed_record_sha256 = ?, organization_id = ? WHERE id = ?").bind(sha256, organization.id, proofId),
    env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
  ]);
  // The revocation index of the fixture names the C2PA signer's certificate: stored, so that its package is whole.
  await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/c2pa-1.pem"), V2_CHAIN_PEM);
  return { ...stored, owner: organization };
}

type Proof = { proofId: string; run: string };

async function editRecord(proof: Proof, edit: (record: { files: Record<string, FileRow>; file_order: string[] }) => void) {
  const key = sealedRecordKey(proof.proofId, proof.run);
  const record = await (await env.FILES.get(key))!.json<{ files: Record<string, FileRow>; file_order: string[] }>();
  edit(record);
  await env.FILES.put(key, JSON.stringify(record));
}

let address = 0;
const lookUp = (body: Record<string, string>) =>
  callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `198.51.100.${++address % 250}` } });

/** What every presentation of a proof whose record is not the sealed one must say: not verified, no file, nothing matched. */
async function expectRecordRefused(proofId: string, forbidden: string[] = []) {
  // A query string of its own: the answer is computed now, not one kept by the edge cache before the tampering.
  const answer = await callJson(`/v1/public/proofs/${proofId}?probe=${crypto.randomUUID()}`);
  expect(answer.status).toBe(200);
  expect(answer.body.files).toEqual([]);
  expect(answer.body.verification).toMatchObject({ status: "invalid", verdict: "not_verified" });
  expect(byName(answer.body.verification.checks).files_record).toBe("fail");
  const page = await (await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } })).text();
  expect(page).toContain('data-verdict="not_verified"');
  expect(page).toContain('data-testid="files-record-unavailable"');
  for (const value of forbidden) {
    expect(JSON.stringify(answer.body)).not.toContain(value);
    expect(page).not.toContain(value);
  }
  for (const sha256 of [V2_FILES[0].signed_sha256, V2_FILES[0].original_sha256]) {
    const found = await lookUp({ sha256, proof_id: proofId });
    expect(found.status).toBe(200);
    expect(found.body.data.filter((match: { proof_id: string }) => match.proof_id === proofId)).toEqual([]);
  }
}

describe("record.json swapped, reordered or edited while D1 holds its SHA-256", () => {
  it("another proof's genuine record, of the same organization or of another, is not this proof's: refused", async () => {
    const owner = await createOrganization();
    const victim = await sealedWithBoundRecord(owner);
    const sameOrganization = await sealedWithBoundRecord(owner);
    const otherOrganization = await sealedWithBoundRecord();
    for (const donor of [sameOrganization, otherOrganization]) {
      const genuine = await (await env.FILES.get(sealedRecordKey(donor.proofId, donor.run)))!.text();
      await env.FILES.put(sealedRecordKey(victim.proofId, victim.run), genuine);
      await expectRecordRefused(victim.proofId, [donor.proofId]);
      // The donor itself is untouched and still verified.
      expect((await callJson(`/v1/public/proofs/${donor.proofId}?probe=${crypto.randomUUID()}`)).body.verification.verdict).toBe("verified");
    }
    const read = await callJson(`/v1/proofs/${victim.proofId}`, { key: owner.testKey });
    expect(read.body).toMatchObject({ files: [], files_record: "altered" });
  });

  it("its files reordered, or one's capture time, size, kind or step edited: refused, the edited value never shown", async () => {
    const edits: [string, (record: { files: Record<string, FileRow>; file_order: string[] }) => void, string[]][] = [
      ["reordered", (record) => record.file_order.reverse(), []],
      ["captured at", (record) => Object.assign(record.files[V2_FILES[0].id]!, { capturedAt: FORGED_TIME, createdAt: FORGED_TIME }), [FORGED_TIME]],
      ["size", (record) => Object.assign(record.files[V2_FILES[0].id]!, { size: 987_654_321 }), ["987654321"]],
      ["kind", (record) => Object.assign(record.files[V2_FILES[0].id]!, { kind: "video" }), ['"video"']],
      ["step", (record) => Object.assign(record.files[V2_FILES[0].id]!, { stepId: "forged_step" }), ["forged_step"]],
    ];
    for (const [, edit, forbidden] of edits) {
      const proof = await sealedWithBoundRecord();
      await editRecord(proof, edit);
      await expectRecordRefused(proof.proofId, forbidden);
    }
  });

  it("the record re-serialized to the same content (other bytes, same JSON) is altered too: D1 binds the bytes", async () => {
    const proof = await sealedWithBoundRecord();
    const key = sealedRecordKey(proof.proofId, proof.run);
    const record = await (await env.FILES.get(key))!.json();
    await env.FILES.put(key, JSON.stringify(record, null, 1));
    await expectRecordRefused(proof.proofId);
  });
});

describe("manifest.json replaced together with everything unsigned beside it", () => {
  it("a forged manifest, seal, token, chain, artifact-hashes.json and record that agree: not verified, and the re-hash flags the manifest and the record", async () => {
    const proof = await sealedWithBoundRecord();
    const keys = proofArtifactKeys(proof.proofId, proof.run);
    const forgedFile = { ...V2_FILES[0], signed_sha256: "ab".repeat(32) };
    const manifest = text(
      JSON.stringify({
        version: 2,
        proof_id: proof.proofId,
        files: [
          { id: forgedFile.id, sha256: "cd".repeat(32), signed_sha256: forgedFile.signed_sha256, content_type: "image/jpeg", step_id: "photos", position: 1 },
        ],
      }),
    );
    const seal = text("a forger's seal");
    const token = text("a forger's token");
    const chain = text("a forger's chain");
    await env.FILES.put(keys.manifest, manifest);
    await env.FILES.put(packagedArtifactKey(proof.proofId, proof.run, "manifest.p7s"), seal);
    await env.FILES.put(keys.timestampResponse, token);
    await env.FILES.put(keys.timestampChain, chain);
    const hashed = async (bytes: Uint8Array) => ({ sha256: await sha256Hex(bytes), size: bytes.length });
    await env.FILES.put(
      artifactHashesKey(proof.proofId, proof.run),
      JSON.stringify({
        "manifest.json": await hashed(manifest),
        "proof.tsr": await hashed(token),
        "chain.pem": await hashed(chain),
        "manifest.p7s": await hashed(seal),
      }),
    );
    await editRecord(proof, (record) => {
      record.file_order = [forgedFile.id];
      record.files = { [forgedFile.id]: { ...record.files[forgedFile.id]!, sha256: "cd".repeat(32), signedSha256: forgedFile.signed_sha256 } };
    });
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextHour(), { objects: 10_000, bytes: 1 << 30, proofs: 10_000 });
    await expectRecordRefused(proof.proofId, ["cd".repeat(32)]);
    const findings = (await proofRehashes(env.DB, proof.proofId)).findings;
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ entry: "manifest.json", expectedSha256: V2_MANIFEST_SHA256, matched: false }),
        expect.objectContaining({ entry: "record.json" }),
      ]),
    );
    expect(alerts.mock.calls.some(([line]) => String(line).includes(proof.proofId))).toBe(true);
    const verification = (await callJson(`/v1/public/proofs/${proof.proofId}?probe=${crypto.randomUUID()}`)).body.verification;
    expect(byName(verification.checks).manifest_seal).toBe("fail");
  });
});

describe("the re-hash's expected hashes come from the sealed manifest, whatever record.json says", () => {
  it("the record deleted and a signed file replaced: the re-hash still finds the file altered against the manifest, and the record missing", async () => {
    const proof = await sealedWithBoundRecord();
    await env.FILES.delete(sealedRecordKey(proof.proofId, proof.run));
    await env.FILES.put(proof.keys[0]!, text("a photo that was never sealed"));
    const alerts = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextHour(), { objects: 10_000, bytes: 1 << 30, proofs: 10_000 });
    const findings = (await proofRehashes(env.DB, proof.proofId)).findings;
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ fileId: V2_FILES[0].id, expectedSha256: V2_FILES[0].signed_sha256, matched: false }),
        expect.objectContaining({ entry: "record.json" }),
      ]),
    );
    expect(findings.some((finding) => finding.fileId === V2_FILES[1].id)).toBe(false);
    expect(alerts.mock.calls.some(([line]) => String(line).includes(proof.proofId))).toBe(true);
    await expectRecordRefused(proof.proofId);
  });

  it("a signed file replaced and the record rewritten to vouch for it: the record is altered, the file found altered against the manifest", async () => {
    const proof = await sealedWithBoundRecord();
    const forged = text("another photo");
    await env.FILES.put(proof.keys[1]!, forged);
    const forgedSha256 = await sha256Hex(forged);
    await editRecord(proof, (record) => Object.assign(record.files[V2_FILES[1].id]!, { signedSha256: forgedSha256, signedSize: forged.length }));
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), nextHour(), { objects: 10_000, bytes: 1 << 30, proofs: 10_000 });
    const findings = (await proofRehashes(env.DB, proof.proofId)).findings;
    expect(findings).toContainEqual(expect.objectContaining({ fileId: V2_FILES[1].id, expectedSha256: V2_FILES[1].signed_sha256, foundSha256: forgedSha256 }));
    await expectRecordRefused(proof.proofId, [forgedSha256]);
  });
});

describe("the routes refusing the bytes of a proof whose record is lost, asked every way", () => {
  it("HEAD, If-None-Match (its ETag or *), Range and a query string: 409 sealed_record_unavailable, never a 304, never cacheable", async () => {
    const proof = await sealedWithBoundRecord();
    const file = `/v1/public/proofs/${proof.proofId}/files/${V2_FILES[0].id}`;
    const pkg = `/v1/public/proofs/${proof.proofId}/package`;
    const genuineFile = await call(file);
    const genuinePackage = await call(pkg);
    expect([genuineFile.status, genuinePackage.status]).toEqual([200, 200]);
    const [fileTag, packageTag] = [genuineFile.headers.get("ETag")!, genuinePackage.headers.get("ETag")!];
    await Promise.all([genuineFile.arrayBuffer(), genuinePackage.arrayBuffer()]);
    await env.FILES.put(sealedRecordKey(proof.proofId, proof.run), "not json");
    const asked: [string, string, Record<string, string>][] = [
      ["GET", file, {}],
      ["HEAD", file, {}],
      ["GET", file, { "If-None-Match": fileTag }],
      ["GET", file, { "If-None-Match": `W/${fileTag}` }],
      ["HEAD", file, { "If-None-Match": "*" }],
      ["GET", file, { Range: "bytes=0-10" }],
      ["GET", `${file}?download=1`, {}],
      ["GET", `${file}/thumbnail`, { "If-None-Match": `"thumb-${V2_FILES[0].signed_sha256}"` }],
      ["GET", `/v1/public/proofs/${proof.proofId}/files/med_notinthisproof`, {}],
      ["GET", pkg, { "If-None-Match": packageTag }],
      ["HEAD", pkg, {}],
    ];
    for (const [method, path, headers] of asked) {
      const answer = await call(path, { method, headers });
      const body = await answer.text();
      const what = `${method} ${path} ${JSON.stringify(headers)}`;
      expect(answer.status, what).toBe(409);
      if (method === "GET") expect(JSON.parse(body).code, what).toBe("sealed_record_unavailable");
      expect(answer.headers.get("ETag"), what).toBeNull();
      expect(answer.headers.get("Cache-Control") ?? "", what).not.toMatch(/max-age|immutable|public/);
      expect(answer.headers.get("Content-Range"), what).toBeNull();
    }
  });

  it("the page says so in each of its languages, in the reader's language, and offers no file check", async () => {
    const proof = await sealedWithBoundRecord();
    await env.FILES.delete(sealedRecordKey(proof.proofId, proof.run));
    const escaped = (value: string) => value.replaceAll("&", "&amp;").replaceAll("'", "&#39;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
    for (const lang of PAGE_LANGUAGES) {
      const page = await call(`/p/${proof.proofId}?lang=${lang}`, { headers: { Accept: "text/html" } });
      expect(page.status, lang).toBe(200);
      expect(page.headers.get("Content-Language"), lang).toBe(lang);
      const html = await page.text();
      expect(html, lang).toContain('data-verdict="not_verified"');
      expect(html, lang).toContain(escaped(PAGE_MESSAGES[lang].filesRecordUnavailable!));
      expect(html, lang).not.toContain('data-testid="check-drop"');
    }
  });

  it("odd ids, languages and look-ups around such a proof answer 4xx or an empty match, never 5xx", async () => {
    const proof = await sealedWithBoundRecord();
    await env.FILES.put(sealedRecordKey(proof.proofId, proof.run), JSON.stringify({ files: [], file_order: "x" }));
    const long = "x".repeat(5_000);
    const paths = [
      `/v1/public/proofs/${long}`,
      `/p/${long}`,
      `/p/${proof.proofId}?lang=${long}`,
      `/p/${proof.proofId}?lang=ar&lang=zh-Hans`,
      `/v1/public/proofs/${proof.proofId}/files/${long}`,
      `/v1/public/proofs/${proof.proofId}/files/..%2F..%2Frecord.json`,
      `/v1/public/proofs/${proof.proofId}/files/${V2_FILES[0].id}/thumbnail?x=%E0%A4%A`,
      "/p/%00",
      "/v1/public/proofs/%F0%9F%98%80/package",
      "/p/prf_99abcdefghijabcdefghij",
    ];
    for (const path of paths)
      for (const accept of ["application/json", "text/html"]) {
        const answer = await call(path, { headers: { Accept: accept, "Accept-Language": "zz;q=2, *;q=x, ar" } });
        await answer.arrayBuffer();
        expect(answer.status, `${path.slice(0, 80)} ${accept}`).toBeLessThan(500);
      }
    for (const body of [
      { sha256: V2_FILES[0].signed_sha256.toUpperCase(), proof_id: proof.proofId },
      { sha256: V2_FILES[0].original_sha256, proof_id: proof.proofId },
      { sha256: "a".repeat(64), proof_id: "prf_99abcdefghijabcdefghij" },
    ]) {
      const answer = await lookUp(body);
      expect(answer.status).toBe(200);
      expect(answer.body.data.filter((match: { proof_id: string }) => match.proof_id === proof.proofId)).toEqual([]);
    }
    expect((await lookUp({ sha256: "a".repeat(64), proof_id: long })).status).toBe(422);
  });
});

describe("a proof sealed with a record of facts only, its rows in D1, its record replaced", () => {
  it("a look-up by its signed hash without naming it finds the D1 row and answers its verification failing, never valid", async () => {
    const { proofId, run } = await storedGenuineV2Proof();
    await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
    await env.DB.prepare("UPDATE proofs SET sealed_record = 1 WHERE id = ?").bind(proofId).run();
    await env.FILES.put(sealedRecordKey(proofId, run), JSON.stringify({ proof_id: proofId, run, files: {} }));
    const answer = await lookUp({ sha256: V2_FILES[1].signed_sha256 });
    expect(answer.status).toBe(200);
    const ours = answer.body.data.filter((match: { proof_id: string }) => match.proof_id === proofId);
    // Found by shard 00's own query (no index entry): the match stands, its verification failing on the record.
    expect(ours).toEqual([expect.objectContaining({ file_id: V2_FILES[1].id, match: "signed", verification: expect.objectContaining({ status: "invalid" }) })]);
    expect(byName(ours[0].verification.checks).files_record).toBe("fail");
    const named = await lookUp({ sha256: V2_FILES[1].signed_sha256, proof_id: proofId });
    const namedOurs = named.body.data.filter((match: { proof_id: string }) => match.proof_id === proofId);
    expect(namedOurs).toEqual([expect.objectContaining({ verification: expect.objectContaining({ status: "invalid" }) })]);
    expect((await callJson(`/v1/public/proofs/${proofId}`)).body).toMatchObject({ files: [], verification: { verdict: "not_verified" } });
    // The fixture's file ids are fixed: the rows go, so that a later fixture proof of this file can insert its own.
    await env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId).run();
  });
});
