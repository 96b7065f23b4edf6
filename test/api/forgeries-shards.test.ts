import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { shardDatabase, shardOfId } from "../../src/db/shards.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { admin, call, callJson, CAPTURE } from "./support/client.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { consumeBatch } from "./support/queues.ts";
import { asSealedBeforeTheRecord } from "./support/proof-files.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { baseSession } from "./support/sessions.ts";

/**
 * Forger session 4 on D1 shards (issue 31 point 3, docs/adr/0062): ids, tokens, index entries, queue bodies and cursors
 * crafted to reach another organization's or another shard's data, each refused with the problem of an unknown one,
 * never a 5xx. (The shard happy paths are in shards-keys, shards-public and shards-sweeps.)
 */
const configuredOpenShards = env.OPEN_SHARDS;
beforeAll(() => {
  env.OPEN_SHARDS = "00,01,02";
});
afterAll(() => {
  env.OPEN_SHARDS = configuredOpenShards;
});

const RANDOM = "k".repeat(20);

async function organizationOn(shard: string) {
  const org = await admin("/admin/v1/organizations", { name: `Forged on ${shard}`, shard });
  const key = await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "test" });
  expect(key.status).toBe(201);
  return { id: org.body.id as string, key: key.body.key as string };
}

const newSession = (key: string, body: object = baseSession()) =>
  callJson("/v1/capture-sessions", { key, body, headers: { "Idempotency-Key": crypto.randomUUID() } });

/** A proof of the organization captured through its link and sealed in its shard, its signed copy's hash its own. */
async function sealedProofOf(org: { id: string; key: string }) {
  const created = await newSession(org.key);
  expect(created.status).toBe(201);
  const token = tokenOf(created.body.capture_url);
  const photo = await uploadPhoto(token);
  const done = await captureCall(token, "/complete", { body: {} });
  expect(done.status).toBe(200);
  const signedSha256 = photo.sha256.split("").reverse().join("");
  const { deps } = dependencies(async (job) => {
    const answer = sealedAnswer(job);
    return { ...answer, files: answer.files.map((file) => ({ ...file, signed_sha256: signedSha256 })) };
  });
  expect(await sealProof({ ...deps, db: shardDatabase(env, shardOfId(org.id)) }, done.body.proof_id)).toBe("sealed");
  return { proofId: done.body.proof_id as string, sessionId: created.body.id as string, token, originalSha256: photo.sha256, signedSha256 };
}

const lookUp = (body: Record<string, string>) =>
  callJson("/v1/public/verify", { method: "POST", body, headers: { "CF-Connecting-IP": `198.51.100.${Math.floor(Math.random() * 250)}` } });

describe("public routes and pages with crafted proof ids", () => {
  it("answers each odd id as an unknown proof (404 problem, the page's not-found), an over-long one 422, never 5xx", async () => {
    const unknown = [
      `prf_0A${RANDOM}`, // an upper-case shard code
      `PRF_01${RANDOM}`,
      `prf_01${RANDOM.toUpperCase()}`,
      `prf_00${RANDOM}`, // a shard-00 id of the new length that was never minted
      `prf_03${RANDOM}`, // a well-formed code of no shard here
      `prf_${RANDOM}x`, // 21 characters: neither layout
      `prf_01${RANDOM}%2F..%2F..`,
      `prf_0%31${RANDOM}`,
      `prf_%E0%A4%A`, // malformed percent-encoding
      "..",
    ];
    for (const id of unknown) {
      for (const path of ["", "/package", "/report.pdf", "/files/med_x", "/files/med_x/thumbnail"]) {
        const answer = await callJson(`/v1/public/proofs/${id}${path}`);
        expect(answer.status, `${id}${path}`).toBe(404);
        expect(answer.headers.get("Content-Type"), `${id}${path}`).toBe("application/problem+json");
      }
      const page = await call(`/p/${id}`, { headers: { Accept: "text/html" } });
      expect(page.status, id).toBe(404);
      await page.body?.cancel();
    }
    const long = await callJson(`/v1/public/proofs/prf_01${"a".repeat(5000)}`);
    expect(long.status).toBe(422);
    expect(long.headers.get("Content-Type")).toBe("application/problem+json");
  });
});

describe("capture routes with a link's token altered", () => {
  it("answers a real token whose shard characters are changed, cut or lengthened as an unknown link on every route", async () => {
    const org = await organizationOn("01");
    const created = await newSession(org.key);
    const token = tokenOf(created.body.capture_url);
    expect(token.slice(0, 2)).toBe("01");
    const body = token.slice(2);
    for (const forged of [`00${body}`, `02${body}`, `0A${body}`, `zz${body}`, body.slice(0, 43), `${token}x`]) {
      for (const [path, method] of [
        ["/session", "GET"],
        ["/logo", "GET"],
        ["/before/med_x", "GET"],
        ["/complete", "POST"],
        ["/files/med_x", "DELETE"],
        ["/files/med_x/upload", "POST"],
        ["/files/med_x/complete", "POST"],
      ] as const) {
        const answer = await callJson(`${CAPTURE}/c/${forged}${path}`, { method, body: method === "POST" ? {} : undefined });
        expect(answer.status, `${forged.slice(0, 4)} ${path}`).toBe(404);
        expect(answer.headers.get("Content-Type")).toBe("application/problem+json");
      }
      const page = await call(`${CAPTURE}/c/${forged}`);
      expect(page.status).toBe(404);
      await page.body?.cancel();
    }
    // The genuine link still works: nothing above used it up.
    expect((await captureCall(token, "/session")).status).toBe(200);
  });
});

describe("POST /v1/public/verify with poisoned or junk hash-index entries (docs/adr/0060, 0062)", () => {
  it("never names a proof for its original through an index entry, nor for another proof named", async () => {
    const victim = await sealedProofOf(await organizationOn("01"));
    const asker = await sealedProofOf(await organizationOn("02"));
    // An entry naming the victim's proof under its ORIGINAL's hash, as a poisoned or mistaken index would hold.
    await env.FILES.put(`hashes/${victim.originalSha256}/${victim.proofId}`, new Uint8Array());
    expect((await lookUp({ sha256: victim.originalSha256 })).body.data).toEqual([]);
    expect((await lookUp({ sha256: victim.originalSha256, proof_id: asker.proofId })).body.data).toEqual([]);
    // Its signed copy is still found, and its original when the proof itself is named.
    expect((await lookUp({ sha256: victim.signedSha256 })).body.data).toEqual([expect.objectContaining({ proof_id: victim.proofId, match: "signed" })]);
    expect((await lookUp({ sha256: victim.originalSha256, proof_id: victim.proofId })).body.data).toEqual([
      expect.objectContaining({ proof_id: victim.proofId, match: "original" }),
    ]);
  });

  it("answers 200 and no match for junk entries and odd proof ids, 422 for an over-long proof id", async () => {
    const sha256 = "d".repeat(64);
    for (const name of [`prf_01../../${RANDOM}`, `sub/dir/prf_01${RANDOM}`, "x".repeat(900), "%E0"]) {
      await env.FILES.put(`hashes/${sha256}/${name}`, new Uint8Array());
    }
    expect(await lookUp({ sha256 })).toMatchObject({ status: 200, body: { data: [] } });
    for (const proofId of ["", "..", `PRF_01${RANDOM}`, `prf_zz${RANDOM}`, "x".repeat(64)]) {
      expect(await lookUp({ sha256: "e".repeat(64), proof_id: proofId }), proofId).toMatchObject({ status: 200, body: { data: [] } });
    }
    expect((await lookUp({ sha256: "e".repeat(64), proof_id: "x".repeat(65) })).body).toMatchObject({ status: 422, code: "validation_failed" });
  });

  it("finds a sealed file past 20, or 200, entries of made-up ids and others' proofs listed before its own (G7)", async () => {
    const victim = await sealedProofOf(await organizationOn("01"));
    const other = await sealedProofOf(await organizationOn("01"));
    // Well-shaped ids of shard 00, 01 and 02 never minted, all before the victim's in key order; a sealed proof holding other bytes.
    const planted = (count: number, from: number) =>
      Array.from({ length: count }, (_, index) => `prf_0${(from + index) % 3}${String(from + index).padStart(20, "0")}`);
    const plantAll = (ids: string[]) => Promise.all(ids.map((id) => env.FILES.put(`hashes/${victim.signedSha256}/${id}`, new Uint8Array())));
    await plantAll([...planted(20, 0), other.proofId]);
    const found = [expect.objectContaining({ proof_id: victim.proofId, match: "signed" })];
    expect((await lookUp({ sha256: victim.signedSha256 })).body.data).toEqual(found);
    await plantAll(planted(180, 20));
    expect((await env.FILES.list({ prefix: `hashes/${victim.signedSha256}/` })).objects).toHaveLength(202);
    expect((await lookUp({ sha256: victim.signedSha256 })).body.data).toEqual(found);
  });

  it("still searches shard 00 for a proof sealed before the index when an entry is planted under its hash (G7)", async () => {
    const legacy = await sealedProofOf(await organizationOn("00"));
    await env.FILES.delete(`hashes/${legacy.signedSha256}/${legacy.proofId}`);
    await asSealedBeforeTheRecord(legacy.proofId);
    await env.FILES.put(`hashes/${legacy.signedSha256}/prf_00nothingeverminted00`, new Uint8Array());
    expect((await lookUp({ sha256: legacy.signedSha256 })).body.data).toEqual([expect.objectContaining({ proof_id: legacy.proofId, match: "signed" })]);
  });
});

describe("an organization's key against another organization's resources, on its shard and another", () => {
  it("answers every read and write of another organization's session, endpoint, delivery or proof as unknown", async () => {
    const owner = await organizationOn("01");
    const session = await newSession(owner.key);
    const endpoint = await callJson("/v1/webhook-endpoints", { key: owner.key, body: { url: "https://hooks.example.com/forged", events: ["proof.sealed"] } });
    expect(endpoint.status).toBe(201);
    const sameShard = await organizationOn("01");
    const otherShard = await organizationOn("02");
    const movedSession = session.body.id.replace(/^cps_01/, "cps_02");
    for (const { key } of [sameShard, otherShard]) {
      for (const [path, method, code] of [
        [`/v1/capture-sessions/${session.body.id}`, "GET", "capture_session_not_found"],
        [`/v1/capture-sessions/${movedSession}`, "GET", "capture_session_not_found"],
        [`/v1/webhook-endpoints/${endpoint.body.id}`, "GET", "webhook_endpoint_not_found"],
        [`/v1/webhook-endpoints/${endpoint.body.id}`, "DELETE", "webhook_endpoint_not_found"],
        [`/v1/webhook-endpoints/${endpoint.body.id}/rotate-secret`, "POST", "webhook_endpoint_not_found"],
        [`/v1/webhook-endpoints/${endpoint.body.id}/test`, "POST", "webhook_endpoint_not_found"],
        [`/v1/webhook-deliveries/wdl_01${RANDOM}`, "GET", "webhook_delivery_not_found"],
        [`/v1/webhook-deliveries/wdl_01${RANDOM}/retry`, "POST", "webhook_delivery_not_found"],
        [`/v1/proofs/prf_01${RANDOM}`, "GET", "proof_not_found"],
      ] as const) {
        const answer = await callJson(path, { key, method, body: method === "POST" ? {} : undefined });
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.body.code, `${method} ${path}`).toBe(code);
      }
      const after = await newSession(key, { ...baseSession(), compare_to: `prf_01${RANDOM}` });
      expect(after.body).toMatchObject({ status: 422, code: "compare_to_not_found" });
    }
    // The owner's own still answer: the refusals above were about who asked.
    expect((await callJson(`/v1/webhook-endpoints/${endpoint.body.id}`, { key: owner.key })).status).toBe(200);
  });
});

describe("operator routes and queues with crafted ids, cursors and bodies", () => {
  it("answers odd organization and key ids 404 or 422, and forged altered-objects cursors 422", async () => {
    for (const id of [`org_0A${RANDOM}`, "..", "org_", `org_01${RANDOM}`]) {
      expect((await admin(`/admin/v1/organizations/${id}/api-keys`, { mode: "test" })).status, id).toBe(404);
      expect((await admin(`/admin/v1/organizations/${id}/balance`, { amount: 1, reason: "forged" })).status, id).toBe(404);
      expect((await admin(`/admin/v1/api-keys/${id.replace("org", "key")}`, undefined, "DELETE")).status, id).toBe(404);
    }
    expect((await admin(`/admin/v1/organizations/org_01${"a".repeat(4000)}/balance`, { amount: 1, reason: "forged" })).status).toBe(422);
    for (const cursor of ["x", "eyJ4IjoxfQ", "%E0"]) {
      expect((await admin(`/admin/v1/altered-objects?cursor=${cursor}`, undefined, "GET")).body, cursor).toMatchObject({ status: 422, code: "invalid_cursor" });
    }
  });

  it("acknowledges malformed bodies and ids of no proof or delivery on every queue, never retrying them", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    for (const body of [
      { proof_id: 42 },
      {},
      null,
      "prf_01",
      { proof_id: `prf_0A${RANDOM}` },
      { proof_id: `prf_01${RANDOM}` },
      { report: "pair", proof_id: `prf_zz${RANDOM}` },
    ]) {
      expect(await consumeBatch("proof-sealing", [body]), JSON.stringify(body)).toEqual(["proof-sealing-0"]);
    }
    for (const queue of ["webhook-delivery", "webhook-delivery-dlq"]) {
      for (const body of [{ delivery_id: 1 }, { delivery_id: `wdl_01${RANDOM}` }, { delivery_id: `wdl_0A${RANDOM}` }]) {
        expect(await consumeBatch(queue, [body]), `${queue} ${JSON.stringify(body)}`).toEqual([`${queue}-0`]);
      }
    }
    for (const body of [{ shard: "0A" }, { shard: "../" }, { shard: 1 }, { shard: "" }, "00"]) {
      expect(await consumeBatch("proof-sweeps", [body]), JSON.stringify(body)).toEqual(["proof-sweeps-0"]);
    }
  });
});
