import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { createSession } from "./support/sessions.ts";
import { captureCall, tokenOf } from "./support/capture.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";
import { BUILT_IN_TEMPLATE } from "../../src/capture-templates/snapshot.ts";

/** A sealed "before" of two photos, each with the thumbnail the sealer made, stored in R2. */
async function sealedBeforeWithThumbnails(organizationId: string) {
  const before = await insertPendingProof(organizationId, "test", 2);
  await env.DB.prepare("UPDATE proofs SET status = 'sealed' WHERE id = ?").bind(before.proofId).run();
  await setSessionSnapshot(before.sessionId, JSON.stringify(BUILT_IN_TEMPLATE));
  const thumbnails: Record<string, Uint8Array> = {};
  for (const fileId of before.fileIds) {
    // Where sealing puts it (a proof sealed without a run: at its root): a key elsewhere is never served (forger session 7, G6).
    const key = `proofs/${before.proofId}/thumbnails/${fileId}.webp`;
    thumbnails[fileId] = crypto.getRandomValues(new Uint8Array(100));
    await env.FILES.put(key, thumbnails[fileId]);
    const thumbnail = JSON.stringify({ content_type: "image/webp", width: 480, height: 360, size: 100, key });
    await env.DB.prepare("UPDATE files SET thumbnail = ? WHERE id = ?").bind(thumbnail, fileId).run();
  }
  const proof = await env.DB.prepare("SELECT external_reference FROM proofs WHERE id = ?").bind(before.proofId).first<{ external_reference: string }>();
  return { ...before, reference: proof!.external_reference, thumbnails };
}

describe('an "after" sees its before\'s shots', () => {
  it("lists the before's thumbnails in its session, each served behind the after's own link only", async () => {
    const org = await createOrganization();
    const before = await sealedBeforeWithThumbnails(org.id);
    const after = await createSession(org.testKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
    expect(after.status).toBe(201);
    const token = tokenOf(after.body.capture_url);
    const view = await captureCall(token, "/session");
    expect(view.body.before_thumbnails).toEqual(
      // In capture order (the factory's files share one time: then by id).
      [...before.fileIds].sort().map((fileId) => ({ step_id: "photos", url: `${CAPTURE}/c/${token}/before/${fileId}` })),
    );
    for (const fileId of before.fileIds) {
      const served = await call(`${CAPTURE}/c/${token}/before/${fileId}`);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/webp");
      expect(served.headers.get("cache-control")).toBe("no-store");
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(before.thumbnails[fileId]);
    }
  });

  it("serves nothing to another link, to an ordinary capture, or for a file that is not the before's", async () => {
    const org = await createOrganization();
    const before = await sealedBeforeWithThumbnails(org.id);
    const [fileId] = before.fileIds as [string];
    const ordinary = await createSession(org.testKey, { external_reference: `plain-${crypto.randomUUID()}`, party: "provider" });
    const ordinaryToken = tokenOf(ordinary.body.capture_url);
    expect((await captureCall(ordinaryToken, "/session")).body.before_thumbnails).toBeNull();
    expect((await callJson(`${CAPTURE}/c/${ordinaryToken}/before/${fileId}`)).body).toMatchObject({ status: 404, code: "capture_file_not_found" });
    expect((await callJson(`${CAPTURE}/c/${"x".repeat(43)}/before/${fileId}`)).body).toMatchObject({ status: 404, code: "capture_link_not_found" });
    const after = await createSession(org.testKey, { external_reference: before.reference, party: "provider", compare_to: before.proofId });
    const afterToken = tokenOf(after.body.capture_url);
    const other = await insertPendingProof(org.id, "test", 1);
    expect((await callJson(`${CAPTURE}/c/${afterToken}/before/${other.fileIds[0]}`)).body).toMatchObject({ status: 404, code: "capture_file_not_found" });
  });
});
