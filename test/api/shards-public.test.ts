import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { organizations } from "../../src/db/schema/index.ts";
import { newShardedId, type ShardCode, shardDatabase } from "../../src/db/shards.ts";
import { createCaptureSession } from "../../src/capture-sessions/create-capture-session.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { makeProofReport } from "../../src/reports/make-report.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { trustAnchorUpserts } from "../../src/storage/trust-anchors.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { captureCall, uploadPhoto } from "./support/capture.ts";
import { dependencies, sealedAnswer, signedHashOf, storeSignedCopyAndThumbnail } from "./support/sealing.ts";
import { baseSession } from "./support/sessions.ts";
import { rawBinding } from "./support/platform-limits.ts";
import { asSealedBeforeTheRecord, filesOfProof } from "./support/proof-files.ts";

type ShardBindings = Record<"DB" | "DB_01" | "DB_02", D1Database>;
const bindings = env as unknown as ShardBindings;

/** An organization placed directly in a shard's database, with an id naming it (as the operator's route mints it). */
async function organizationOn(shard: ShardCode): Promise<string> {
  const id = newShardedId("org", shard);
  const now = new Date().toISOString();
  await shardDatabase(env, shard)
    .insert(organizations)
    .values({ id, name: `Org on ${shard}`, balance: 0, createdAt: now, updatedAt: now });
  return id;
}

/** A capture link of an organization of the shard, made by the service's own creation (its key is not what is tested here). */
async function captureLinkOn(shard: ShardCode) {
  const organizationId = await organizationOn(shard);
  const caller = {
    keyId: "key_shards",
    organizationId,
    organizationName: `Org on ${shard}`,
    mode: "test" as const,
    rights: [],
    rateLimitPerMinute: 1000,
    writeShard: shard,
    shards: [shard],
  };
  const created = await createCaptureSession({
    ctx: { db: shardDatabase(env, shard), env, caller, now: new Date() },
    input: baseSession() as { external_reference: string; party: "provider" },
    request: { key: crypto.randomUUID(), requestHash: "shards" },
  });
  return { organizationId, token: created.token, sessionId: created.session.id };
}

/** A capture through the capture host on the shard, completed, then sealed with a stored signed copy and thumbnail. */
async function sealedProofOn(shard: ShardCode) {
  const link = await captureLinkOn(shard);
  const { fileId } = await uploadPhoto(link.token);
  const done = await captureCall(link.token, "/complete", { body: {} });
  expect(done.status).toBe(200);
  const proofId: string = done.body.proof_id;
  const { deps } = dependencies(async (job: SealJob) => {
    const thumbnail = await storeSignedCopyAndThumbnail(job.files[0]!);
    const answer = sealedAnswer(job);
    return {
      ...answer,
      files: answer.files.map((one) => ({ ...one, signed_sha256: signedHashOf(job.proof.id), thumbnail })),
    };
  });
  expect(await sealProof({ ...deps, db: shardDatabase(env, shard) }, proofId)).toBe("sealed");
  return { ...link, proofId, fileId, signedSha256: signedHashOf(proofId) };
}

/**
 * Runs `work` with the D1 bindings named refusing every statement: a request that queried one of them would fail
 * (500), so an answer proves it asked none. (Counting would not: the queue consumers of this file's earlier
 * captures may run meanwhile, on any shard.)
 */
async function withShardsRefused<T>(names: (keyof ShardBindings)[], work: () => Promise<T>): Promise<T> {
  const saved = names.map((name) => [name, bindings[name]] as const);
  for (const [name, binding] of saved) {
    bindings[name] = new Proxy(binding, {
      get(target, property) {
        if (property === "prepare" || property === "batch" || property === "exec") {
          return () => {
            throw new Error(`${name} refused: no statement may reach it during the look-up`);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
  try {
    return await work();
  } finally {
    for (const [name, binding] of saved) bindings[name] = binding;
  }
}

const lookUp = (body: Record<string, string>) =>
  callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `203.0.113.${Math.floor(Math.random() * 250)}` } });

describe("public routes find a proof's shard from its id, and capture routes from the link's token (docs/adr/0062)", () => {
  for (const shard of ["00", "01", "02"]) {
    it(`serves a proof of an organization on shard ${shard}: its JSON, page, package and thumbnail`, async () => {
      const { proofId, fileId, token, sessionId } = await sealedProofOn(shard);
      // The ids and the token name the shard, after their prefix and at the token's start.
      expect(proofId.slice(4, 6)).toBe(shard);
      expect(sessionId.slice(4, 6)).toBe(shard);
      expect(token.slice(0, 2)).toBe(shard);
      expect(token).toHaveLength(45);
      const row = await rawBinding(bindings[shard === "00" ? "DB" : shard === "01" ? "DB_01" : "DB_02"])
        .prepare("SELECT status FROM proofs WHERE id = ?")
        .bind(proofId)
        .first<{ status: string }>();
      expect(row?.status).toBe("sealed");

      const json = await callJson(`/v1/public/proofs/${proofId}`);
      expect(json.status).toBe(200);
      expect(json.body).toMatchObject({ id: proofId, status: "sealed", files: [expect.objectContaining({ id: fileId })] });
      const page = await call(`/p/${proofId}`, { headers: { Accept: "text/html" } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(proofId);
      const zip = await call(`/v1/public/proofs/${proofId}/package`);
      expect(zip.status).toBe(200);
      expect(zip.headers.get("Content-Type")).toBe("application/zip");
      await zip.body?.cancel();
      const thumbnail = await call(`/v1/public/proofs/${proofId}/files/${fileId}/thumbnail`);
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get("Content-Type")).toBe("image/webp");
      await thumbnail.body?.cancel();
      const signed = await call(`/v1/public/proofs/${proofId}/files/${fileId}`);
      expect(signed.status).toBe(200);
      expect(await signed.text()).toBe("signed bytes");
      // No report is made yet: the report's route answers as for any proof without one, not as for an unknown proof.
      const report = await callJson(`/v1/public/proofs/${proofId}/report.pdf`);
      expect(report.body.code).toBe("report_not_ready");
    });
  }

  it("runs the capture flow by a link's token on shards 01 and 02, each session and proof in its own shard only", async () => {
    for (const [shard, name, others] of [
      ["01", "DB_01", ["DB", "DB_02"]],
      ["02", "DB_02", ["DB", "DB_01"]],
    ] as const) {
      const link = await captureLinkOn(shard);
      const session = await captureCall(link.token, "/session");
      expect(session.status).toBe(200);
      const page = await call(`${CAPTURE}/c/${link.token}`);
      expect(page.status).toBe(200);
      await page.body?.cancel();
      const { fileId } = await uploadPhoto(link.token);
      const done = await captureCall(link.token, "/complete", { body: {} });
      expect(done.status).toBe(200);
      const where = async (binding: keyof ShardBindings) =>
        rawBinding(bindings[binding])
          .prepare("SELECT (SELECT count(*) FROM proofs WHERE id = ?) + (SELECT count(*) FROM files WHERE id = ? AND status = 'uploaded') AS found")
          .bind(done.body.proof_id, fileId)
          .first<{ found: number }>();
      expect((await where(name))?.found).toBe(2);
      for (const other of others) expect((await where(other))?.found).toBe(0);
      // The link is used now, as behind any completed capture.
      expect((await captureCall(link.token, "/session")).body.code).toBe("capture_link_used");
    }
  });

  it("answers an id or a token naming a shard this deployment has not as an unknown one: 404, never 5xx", async () => {
    const proofId = newShardedId("prf", "zz");
    for (const path of ["", "/package", "/report.pdf", "/pair-report.pdf", "/files/med_x", "/files/med_x/thumbnail"]) {
      const answer = await callJson(`/v1/public/proofs/${proofId}${path}`);
      expect(answer.status, path).toBe(404);
      expect(answer.body.code, path).toBe("proof_not_found");
    }
    expect((await callJson(`/p/${proofId}`)).body.code).toBe("proof_not_found");
    const page = await call(`/p/${proofId}`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("Content-Type")).toContain("text/html");
    await page.body?.cancel();

    const token = `zz${"A".repeat(43)}`;
    const session = await captureCall(token, "/session");
    expect(session.status).toBe(404);
    expect(session.body.code).toBe("capture_link_not_found");
    expect((await captureCall(token, "/complete", { body: {} })).body.code).toBe("capture_link_not_found");
    const capturePage = await call(`${CAPTURE}/c/${token}`);
    expect(capturePage.status).toBe(404);
    await capturePage.body?.cancel();
  });
});

describe("verify-by-hash finds a proof of any shard through the R2 index, asking only its shard (docs/adr/0062)", () => {
  it("finds a shard-02 proof's signed file while the databases of shards 00 and 01 are not queried", async () => {
    const { proofId, fileId, signedSha256 } = await sealedProofOn("02");
    const result = await withShardsRefused(["DB", "DB_01"], () => lookUp({ sha256: signedSha256 }));
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual([expect.objectContaining({ proof_id: proofId, file_id: fileId, match: "signed" })]);
    // Verified again as the proof's public JSON is.
    expect(result.body.data[0].verification.status).toBe((await callJson(`/v1/public/proofs/${proofId}`)).body.verification.status);
  });

  it("finds a shard-01 proof's sealed report by its hash while the databases of shards 00 and 02 are not queried", async () => {
    const { proofId } = await sealedProofOn("01");
    const pdf = new TextEncoder().encode(`%PDF-1.7 report of ${proofId}`);
    const made = await makeProofReport(
      { env, db: shardDatabase(env, "01"), pictureUrl: async (key) => ({ url: `https://storage.test/${key}` }), makePdf: async () => pdf },
      proofId,
      "proof",
    );
    expect(made).toBe("made");
    const result = await withShardsRefused(["DB", "DB_02"], async () => lookUp({ sha256: await sha256Hex(pdf) }));
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual([expect.objectContaining({ proof_id: proofId, file_id: null, match: "report" })]);
  });

  it("answers a shard-01 proof's original only when that proof is named, reading its shard and no third one", async () => {
    const { proofId } = await sealedProofOn("01");
    const [original] = await filesOfProof(proofId, bindings.DB_01);
    // Bare, the hash is no signed file's nor report's: nothing is indexed, and shard 00 is searched as before the index.
    expect((await lookUp({ sha256: original!.sha256 })).body.data).toEqual([]);
    // Named, its originals are read in its shard; shard 00 is still searched for what was signed before the index.
    const named = await withShardsRefused(["DB_02"], () => lookUp({ sha256: original!.sha256, proof_id: proofId }));
    expect(named.status).toBe(200);
    expect(named.body.data).toEqual([expect.objectContaining({ proof_id: proofId, match: "original" })]);
  });

  it("still finds a proof sealed before the index (no entry) in shard 00 by the database's own look-up", async () => {
    const { proofId, signedSha256 } = await sealedProofOn("00");
    const listed = await env.FILES.list({ prefix: `hashes/${signedSha256}/` });
    expect(listed.objects.map((object) => object.key)).toEqual([`hashes/${signedSha256}/${proofId}`]);
    await env.FILES.delete(listed.objects[0]!.key);
    await asSealedBeforeTheRecord(proofId);
    expect((await lookUp({ sha256: signedSha256 })).body.data).toEqual([expect.objectContaining({ proof_id: proofId, match: "signed" })]);
  });

  it("still finds a shard-00 signed file sealed before the index when a proof of another shard is named", async () => {
    const legacy = await sealedProofOn("00");
    await env.FILES.delete(`hashes/${legacy.signedSha256}/${legacy.proofId}`);
    await asSealedBeforeTheRecord(legacy.proofId);
    const other = await sealedProofOn("01");
    // Naming a proof only adds its originals (docs/adr/0060): it never hides a proof holding the file as signed.
    expect((await lookUp({ sha256: legacy.signedSha256, proof_id: other.proofId })).body.data).toEqual([
      expect.objectContaining({ proof_id: legacy.proofId, match: "signed" }),
    ]);
  });

  it("ignores an index entry whose proof is not sealed, or names a shard this deployment has not", async () => {
    const sha256 = "c".repeat(64);
    const link = await captureLinkOn("01");
    await uploadPhoto(link.token);
    const done = await captureCall(link.token, "/complete", { body: {} });
    // A sealing run that indexed its signed copy and died before its batch: the proof is still pending.
    await env.FILES.put(`hashes/${sha256}/${done.body.proof_id}`, new Uint8Array());
    await env.FILES.put(`hashes/${sha256}/${newShardedId("prf", "zz")}`, new Uint8Array());
    const answer = await lookUp({ sha256 });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([]);
  });
});

describe("GET /v1/public/trust-anchors over every shard (docs/adr/0062)", () => {
  it("lists each root once, its first and last seal over all shards, the latest used current", async () => {
    // Roots of their own (a root's SHA-256 is its row's key, whatever kind the proofs sealed here recorded it as).
    const root = (name: string) => {
      const sha256 = Array.from({ length: 64 }, () => Math.floor(Math.random() * 16).toString(16)).join("");
      return { sha256, subject: `CN=${name}`, pem: name, opensslFingerprint: sha256.toUpperCase() };
    };
    const first = root("First root");
    const second = root("Second root");
    const record = async (shard: ShardCode, fingerprint: typeof first, sealedAt: string) => {
      const db = shardDatabase(env, shard);
      await db.batch([...trustAnchorUpserts(db, [{ kind: "timestamp_authority", root: fingerprint }], "live", sealedAt)] as never);
    };
    await record("01", first, "2026-01-01T00:00:00.000Z");
    await record("02", second, "2026-02-01T00:00:00.000Z");
    await record("02", first, "2026-03-01T00:00:00.000Z");
    const { data } = (await callJson("/v1/public/trust-anchors")).body as { data: Record<string, string>[] };
    expect(data.filter((row) => row.kind === "timestamp_authority" && row.mode === "live")).toEqual([
      expect.objectContaining({
        sha256: first.sha256,
        status: "current",
        first_sealed_at: "2026-01-01T00:00:00.000Z",
        last_sealed_at: "2026-03-01T00:00:00.000Z",
      }),
      expect.objectContaining({ sha256: second.sha256, status: "past", first_sealed_at: "2026-02-01T00:00:00.000Z" }),
    ]);
    expect(new Set(data.map((row) => row.sha256)).size).toBe(data.length);
  });
});
