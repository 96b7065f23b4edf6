import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { storeSealedRecord } from "../../src/storage/objects/sealed-records.ts";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { captureCall, tokenOf } from "./support/capture.ts";
import { createSession } from "./support/sessions.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";
import { BUILT_IN_TEMPLATE } from "../../src/capture-templates/snapshot.ts";
import { createOrganization } from "./support/factories.ts";
import { filesOfProof } from "./support/proof-files.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { V2_FILES } from "./fixtures/sealed-proof-v2.ts";

/**
 * A sealed proof whose record of files in R2 is deleted, is not JSON, or is other JSON than sealing wrote (forger
 * session 5, F3): every route presenting it answers what was observed, never a 5xx and never verified. Where a verdict
 * is shown, it is not verified with the failing check `files_record` and no file listed; where bytes are served, the
 * stable problem `sealed_record_unavailable`.
 */
type Tampering = "deleted" | "not json" | "other json";
type Fault = "missing" | "altered" | "unreadable";

/**
 * The genuine version-2 proof with its files in its record alone (docs/adr/0065), read by a fresh organization's key,
 * then its record tampered with. `hashInD1`: D1 holds the record's SHA-256 (migration 0028), as for every proof sealed
 * since; without it (sealed before), only the record's content can tell.
 */
async function tamperedProof(tampering: Tampering, hashInD1: boolean) {
  const { proofId, run, sessionId } = await storedGenuineV2Proof();
  await setSessionSnapshot(sessionId, JSON.stringify(BUILT_IN_TEMPLATE));
  const sha256 = await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
  const owner = await createOrganization();
  await env.DB.batch([
    env.DB.prepare("UPDATE proofs SET sealed_record = 2, sealed_record_sha256 = ?, organization_id = ? WHERE id = ?").bind(
      hashInD1 ? sha256 : null,
      owner.id,
      proofId,
    ),
    env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
  ]);
  const key = sealedRecordKey(proofId, run);
  if (tampering === "deleted") await env.FILES.delete(key);
  else if (tampering === "not json") await env.FILES.put(key, "not json");
  else await env.FILES.put(key, JSON.stringify({ proof_id: proofId, run, files: {}, file_order: [V2_FILES[0].id] }));
  return { proofId, ownerKey: owner.testKey };
}

/** What the service can say of each tampering: a deleted record is missing; other bytes than D1's hash are altered. */
const CASES: { tampering: Tampering; hashInD1: boolean; fault: Fault }[] = [
  { tampering: "deleted", hashInD1: true, fault: "missing" },
  { tampering: "not json", hashInD1: true, fault: "altered" },
  { tampering: "other json", hashInD1: true, fault: "altered" },
  { tampering: "not json", hashInD1: false, fault: "unreadable" },
  { tampering: "other json", hashInD1: false, fault: "altered" },
];

let address = 0;
const lookUp = (body: Record<string, string>) =>
  callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `203.0.113.${++address % 250}` } });

describe.each(CASES)("a sealed proof's record $tampering (its hash in D1: $hashInD1)", ({ tampering, hashInD1, fault }) => {
  it("the public JSON says not verified, the record's check failing, and lists no file", async () => {
    const { proofId } = await tamperedProof(tampering, hashInD1);
    const answer = await callJson(`/v1/public/proofs/${proofId}`);
    expect(answer.status).toBe(200);
    expect(answer.body.files).toEqual([]);
    const { verification } = answer.body;
    expect(verification).toMatchObject({ status: "invalid", verdict: "not_verified" });
    const record = verification.checks.find((check: { name: string }) => check.name === "files_record");
    expect(record).toMatchObject({
      result: "fail",
      detail: expect.stringContaining(fault === "missing" ? "missing" : fault === "altered" ? "altered" : "cannot be read"),
    });
    // Files nobody can list are not claimed missing: the comparison was not made.
    expect(verification.checks.find((check: { name: string }) => check.name === "files_listed")).toMatchObject({ result: "not_checked" });
    expect(verification.checks.some((check: { name: string }) => check.name.startsWith("file_hash:"))).toBe(false);
  });

  it("the page says not verified, in the reader's language, and offers no file check", async () => {
    const { proofId } = await tamperedProof(tampering, hashInD1);
    for (const [lang, words] of [
      ["en", "The service's record of this proof's files is missing or altered"],
      ["fr", "Le registre que le service tient des fichiers de cette preuve est absent ou altéré"],
    ] as const) {
      const page = await call(`/p/${proofId}?lang=${lang}`, { headers: { Accept: "text/html" } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('data-verdict="not_verified"');
      expect(html).not.toContain('data-verdict="verified"');
      expect(html).toContain('data-testid="files-record-unavailable"');
      expect(html).toContain(words.replaceAll("'", "&#39;"));
      expect(html).toContain('data-code="files_record"');
      expect(html).not.toContain('data-testid="check-drop"');
    }
  });

  it("the package, the signed file and its thumbnail answer 409 sealed_record_unavailable", async () => {
    const { proofId } = await tamperedProof(tampering, hashInD1);
    for (const path of [
      `/v1/public/proofs/${proofId}/package`,
      `/v1/public/proofs/${proofId}/files/${V2_FILES[0].id}`,
      `/v1/public/proofs/${proofId}/files/${V2_FILES[0].id}/thumbnail`,
    ]) {
      const answer = await callJson(path);
      expect(answer.status, path).toBe(409);
      expect(answer.body.code, path).toBe("sealed_record_unavailable");
      expect(answer.body.detail, path).toContain("its files cannot be served or packaged");
    }
  });

  it("the public look-up claims no match it cannot check, and never answers valid", async () => {
    const { proofId } = await tamperedProof(tampering, hashInD1);
    for (const sha256 of [V2_FILES[0].signed_sha256, V2_FILES[0].original_sha256]) {
      const answer = await lookUp({ sha256, proof_id: proofId });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([]);
    }
  });

  it("an after of it answers 409 sealed_record_unavailable where it reads the before's shots", async () => {
    const { proofId, ownerKey } = await tamperedProof(tampering, hashInD1);
    const before = await env.DB.prepare("SELECT external_reference, party FROM proofs WHERE id = ?")
      .bind(proofId)
      .first<{ external_reference: string; party: string }>();
    const after = await createSession(ownerKey, { external_reference: before!.external_reference, party: before!.party, compare_to: proofId });
    expect(after.status).toBe(201);
    const token = tokenOf(after.body.capture_url);
    for (const answer of [
      await captureCall(token, "/session"),
      await callJson(`${CAPTURE}/c/${token}/before/${V2_FILES[0].id}`),
      await captureCall(token, "/complete", { method: "POST", body: {} }),
    ]) {
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ code: "sealed_record_unavailable", detail: expect.stringContaining("this after cannot be compared with its shots") });
    }
  });

  it("the owner's proof and list say which, with no file", async () => {
    const { proofId, ownerKey } = await tamperedProof(tampering, hashInD1);
    const read = await callJson(`/v1/proofs/${proofId}`, { key: ownerKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: proofId, status: "sealed", files: [], files_record: fault });
    const list = await callJson("/v1/proofs", { key: ownerKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: proofId, files: [], files_record: fault })]);
  });
});

describe("a proof sealed with a record of facts only (sealed_record 1), its record deleted", () => {
  it("a look-up matching its D1 row answers the match with a failing verification, never valid", async () => {
    const { proofId, run } = await storedGenuineV2Proof();
    await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
    await env.DB.prepare("UPDATE proofs SET sealed_record = 1 WHERE id = ?").bind(proofId).run();
    await env.FILES.delete(sealedRecordKey(proofId, run));
    const answer = await lookUp({ sha256: V2_FILES[0].signed_sha256, proof_id: proofId });
    expect(answer.status).toBe(200);
    // The signed hash is D1's row (sealed before the hash index: shard 00 searched as a whole), so the match stands.
    expect(answer.body.data).toEqual([
      expect.objectContaining({ proof_id: proofId, file_id: V2_FILES[0].id, match: "signed", verification: expect.objectContaining({ status: "invalid" }) }),
    ]);
    expect(answer.body.data[0].verification.checks).toContainEqual(expect.objectContaining({ name: "files_record", result: "fail" }));
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(body).toMatchObject({ files: [], verification: { verdict: "not_verified" } });
    // The fixture's file ids are fixed: the next fixture proof stores its rows under them.
    await env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId).run();
  });
});

describe("a live proof whose record is lost", () => {
  it("claims to prove nothing, in the public JSON and on the page", async () => {
    const { proofId } = await tamperedProof("deleted", true);
    await env.DB.prepare("UPDATE proofs SET mode = 'live' WHERE id = ?").bind(proofId).run();
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(body.claims.proven).toEqual([]);
    expect(body.verification.verdict).toBe("not_verified");
    const html = await (await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } })).text();
    expect(html).not.toContain('data-testid="claims-proven"');
  });
});

describe("a proof whose record is lost after its JSON was served (forger session 7, G1)", () => {
  it("is never answered verified again from the edge cache, nor confirmed by a 304 on the old ETag", async () => {
    const { proofId, run } = await storedGenuineV2Proof();
    const sha256 = await storeSealedRecord(env, proofId, run, await filesOfProof(proofId));
    await env.DB.batch([
      env.DB.prepare("UPDATE proofs SET sealed_record = 2, sealed_record_sha256 = ? WHERE id = ?").bind(sha256, proofId),
      env.DB.prepare("DELETE FROM files WHERE proof_id = ?").bind(proofId),
    ]);
    const first = await callJson(`/v1/public/proofs/${proofId}`);
    expect(first.body.verification.verdict).toBe("verified");
    const etag = first.headers.get("ETag");
    expect(etag).not.toBeNull();
    await env.FILES.delete(sealedRecordKey(proofId, run));
    const again = await callJson(`/v1/public/proofs/${proofId}`);
    expect(again.body.verification.verdict).toBe("not_verified");
    expect(again.headers.get("ETag")).not.toBe(etag);
    const revalidated = await call(`/v1/public/proofs/${proofId}`, { headers: { "If-None-Match": etag! } });
    expect(revalidated.status).toBe(200);
    expect((await revalidated.json<{ verification: { verdict: string } }>()).verification.verdict).toBe("not_verified");
  });
});
