import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { workerContext } from "../../src/domain/context.ts";
import { renewEvidenceRecords } from "../../src/sweeps/renew-evidence-records.ts";
import type { ArchiveTimestamper } from "../../src/evidence/archive-timestamp-client.ts";
import { EVIDENCE_BATCH_SIZE } from "../../src/evidence/evidence-settings.ts";
import { proofArtifactKeys } from "../../src/storage/objects/bucket.ts";
import {
  buildHashTree,
  decodeEvidenceRecord,
  digest,
  encodeEvidenceRecord,
  evidenceGroup,
  hashTreeRenewalGroup,
  nextLeaf,
  rootOfReducedTree,
  timestampRenewalLeaf,
} from "../../shared/evidence-record.ts";
import { checkTimestamp, hex } from "../../shared/timestamp-check.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { FIXTURE_CHAIN_PEM, FIXTURE_TSR_BASE64 } from "./fixtures/sealed-proof.ts";
import { call, callJson } from "./support/client.ts";
import { SEALER_PROTOCOL_VERSION } from "../../shared/sealer-protocol.ts";

const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const TOKEN = (await checkTimestamp(bytes(FIXTURE_TSR_BASE64), new Uint8Array(), "")).token!;
const NOT_AFTER = "2036-11-20T15:36:41.000Z";

/** Proofs sealed the way sealing leaves them (pending, then one UPDATE to sealed), with their artifacts in R2. */
async function sealedProofs(count: number, mode: "test" | "live" = "test", sealedAt = new Date().toISOString()) {
  const org = await createOrganization({ balance: count });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { proofId } = await insertPendingProof(org.id, mode, 0);
    const run = `run_${proofId}`;
    const keys = proofArtifactKeys(proofId, run);
    await env.FILES.put(keys.manifest, `{"proof_id":"${proofId}"}`);
    await env.FILES.put(keys.timestampResponse, `token of ${proofId}`);
    await env.FILES.put(keys.timestampChain, FIXTURE_CHAIN_PEM);
    await env.FILES.put(keys.c2paTrustAnchor, FIXTURE_CHAIN_PEM);
    ids.push(proofId);
    await env.DB.prepare("UPDATE proofs SET status = 'sealed', sealing_run = ?, manifest_sha256 = ?, sealed_at = ?, updated_at = ? WHERE id = ?")
      .bind(run, "c".repeat(64), sealedAt, sealedAt, proofId)
      .run();
  }
  return ids;
}

/** A stand-in for the sealer's `/archive-timestamp`: records each call, answers with a real token. */
function fakeAuthority(delayMs = 0) {
  const calls: { root: string; leaves: number; mode: string }[] = [];
  const timestamper: ArchiveTimestamper = async (request) => {
    calls.push({ root: request.root, leaves: request.leaves, mode: request.mode });
    if (delayMs) await new Promise((done) => setTimeout(done, delayMs));
    return {
      protocol_version: SEALER_PROTOCOL_VERSION,
      token_base64: btoa(String.fromCharCode(...TOKEN)),
      gen_time: new Date().toISOString(),
      authority: "Fake",
      signer_not_after: NOT_AFTER,
    };
  };
  return { calls, timestamper };
}

const row = (proofId: string) => env.DB.prepare("SELECT * FROM evidence_records WHERE proof_id = ?").bind(proofId).first<any>();
const record = async (key: string) => decodeEvidenceRecord(new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer()));
/** Past every pending batch of this shared database: only rows due by then are taken. */
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe("evidence records (RFC 4998) renewed by the sweep", () => {
  it("enrols a proof when it is sealed, and not before", async () => {
    const org = await createOrganization({ balance: 1 });
    const { proofId } = await insertPendingProof(org.id, "test", 0);
    const keys = proofArtifactKeys(proofId, null);
    await Promise.all([env.FILES.put(keys.manifest, "{}"), env.FILES.put(keys.timestampResponse, "token")]);
    expect(await row(proofId)).toBeNull();
    await env.DB.prepare("UPDATE proofs SET status = 'sealed', sealed_at = ?, updated_at = ? WHERE id = ?")
      .bind("2026-11-23T10:00:00.000Z", "2026-11-23T10:00:00.000Z", proofId)
      .run();
    expect(await row(proofId)).toMatchObject({ mode: "test", due_at: "2026-11-23T10:00:00.000Z", record_key: null, archive_timestamps: 0 });
  });

  it("gives 150 due proofs (more than D1's 100 parameters) their first archive timestamp with one authority call per batch, each record's reduced tree leading to the timestamped root", async () => {
    const ids = await sealedProofs(150);
    const { calls, timestamper } = fakeAuthority();
    const worker = workerContext(env);
    let renewed = 0;
    for (let run = 0; run < 4; run++) renewed += await renewEvidenceRecords(worker, later(90), timestamper);
    expect(renewed).toBeGreaterThanOrEqual(150);
    // Batches of at most EVIDENCE_BATCH_SIZE (80) proofs: 150 proofs (and what other tests left due) in a few calls, never one per proof.
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(renewed / EVIDENCE_BATCH_SIZE));
    expect(calls.every((call) => call.leaves <= EVIDENCE_BATCH_SIZE)).toBe(true);
    for (const proofId of ids) {
      const state = await row(proofId);
      expect(state).toMatchObject({ archive_timestamps: 1, hash_algorithm: "SHA-256", authority_expires_at: NOT_AFTER, claimed_until: null });
      // Renewed 180 days before the authority's certificate expires.
      expect(state.due_at).toBe(new Date(Date.parse(NOT_AFTER) - 180 * 86_400_000).toISOString());
      const keys = proofArtifactKeys(proofId, `run_${proofId}`);
      expect(state.record_key).toBe(keys.manifest.replace("manifest.json", "evidence-record.ers"));
    }
    // The record covers the proof's manifest.json and proof.tsr: its first list is their hashes, its root the timestamped one.
    const sample = ids[42]!;
    const er = await record((await row(sample)).record_key);
    expect(er.chains).toHaveLength(1);
    expect(er.chains[0]).toHaveLength(1);
    const stamp = er.chains[0]![0]!;
    expect(stamp.timeStamp).toEqual(TOKEN);
    const keys = proofArtifactKeys(sample, `run_${sample}`);
    const objects = await Promise.all(
      [keys.manifest, keys.timestampResponse].map(async (key) => new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer())),
    );
    expect(stamp.reducedHashtree![0]!.map(hex).sort()).toEqual((await evidenceGroup("SHA-256", objects)).map(hex).sort());
    expect(calls.map((call) => call.root)).toContain(hex(await rootOfReducedTree("SHA-256", stamp.reducedHashtree!)));
  }, 60_000);

  it("waits to gather a batch: a lone proof sealed a minute ago is not stamped yet, one due for an hour is", async () => {
    const [fresh] = await sealedProofs(1, "live", later(-1).toISOString());
    const { calls, timestamper } = fakeAuthority();
    await renewEvidenceRecords(workerContext(env), new Date(), timestamper);
    expect((await row(fresh!)).archive_timestamps).toBe(0);
    await renewEvidenceRecords(workerContext(env), later(61), timestamper);
    expect((await row(fresh!)).archive_timestamps).toBe(1);
    expect(calls.filter((call) => call.mode === "live")).toHaveLength(1);
  });

  it("two sweeps at once renew each proof once: the second finds the rows claimed", async () => {
    const ids = await sealedProofs(30);
    const first = fakeAuthority(50);
    const second = fakeAuthority(50);
    const now = later(200);
    await Promise.all([renewEvidenceRecords(workerContext(env), now, first.timestamper), renewEvidenceRecords(workerContext(env), now, second.timestamper)]);
    for (const proofId of ids) expect((await row(proofId)).archive_timestamps).toBe(1);
    // Each proof was in one tree only: without the claim both sweeps would have bought a timestamp for all 30.
    expect([...first.calls, ...second.calls].reduce((total, call) => total + call.leaves, 0)).toBe(30);
  }, 60_000);

  it("an authority call that fails writes nothing and leaves the claimed proofs alone for 10 minutes, then they are retried", async () => {
    const [proofId] = await sealedProofs(1, "live");
    const failing: ArchiveTimestamper = async () => {
      throw new Error("sealer answered 503 to /archive-timestamp");
    };
    const at = later(800);
    await expect(renewEvidenceRecords(workerContext(env), at, failing)).rejects.toThrow("503");
    const claimed = await row(proofId!);
    expect(claimed).toMatchObject({ archive_timestamps: 0, record_key: null });
    expect(claimed.claimed_until).toBe(new Date(at.getTime() + 10 * 60_000).toISOString());
    const keys = proofArtifactKeys(proofId!, `run_${proofId}`);
    expect(await env.FILES.head(keys.manifest.replace("manifest.json", "evidence-record.ers"))).toBeNull();
    const { calls, timestamper } = fakeAuthority();
    await renewEvidenceRecords(workerContext(env), new Date(at.getTime() + 9 * 60_000), timestamper);
    expect((await row(proofId!)).archive_timestamps).toBe(0);
    await renewEvidenceRecords(workerContext(env), new Date(at.getTime() + 11 * 60_000), timestamper);
    expect((await row(proofId!)).archive_timestamps).toBe(1);
    expect(calls.filter((call) => call.mode === "live")).toHaveLength(1);
  });

  it("renews before the authority's certificate expires: the new archive timestamp covers the previous one's timeStamp", async () => {
    const [proofId] = await sealedProofs(1);
    const { timestamper } = fakeAuthority();
    await renewEvidenceRecords(workerContext(env), later(300), timestamper);
    const first = await row(proofId!);
    expect(first.archive_timestamps).toBe(1);
    // Not due again until 180 days before the certificate's expiry.
    await renewEvidenceRecords(workerContext(env), new Date(Date.parse(first.due_at) - 60_000), timestamper);
    expect((await row(proofId!)).archive_timestamps).toBe(1);
    const { calls, timestamper: renewal } = fakeAuthority();
    // Every proof of this file is due then too: the sweep takes a batch a run, as many runs as it needs.
    for (let run = 0; run < 10 && (await row(proofId!)).archive_timestamps < 2; run++) {
      await renewEvidenceRecords(workerContext(env), new Date(Date.parse(first.due_at) + 61 * 60_000), renewal);
    }
    expect((await row(proofId!)).archive_timestamps).toBe(2);
    const er = await record(first.record_key);
    expect(er.chains[0]).toHaveLength(2);
    const [previous, latest] = er.chains[0]!;
    expect(latest!.reducedHashtree![0]).toEqual(await timestampRenewalLeaf([previous!]));
    expect(calls.map((call) => call.root)).toContain(hex(await rootOfReducedTree("SHA-256", latest!.reducedHashtree!)));
  }, 60_000);
});

describe("the public JSON and the package carry the evidence record", () => {
  it("says when the evidence was last renewed and by whom, and the package holds evidence-record.ers; both ETags change with the renewal", async () => {
    const [proofId] = await sealedProofs(1);
    const before = await callJson(`/v1/public/proofs/${proofId}`);
    expect(before.body.evidence_record).toBeNull();
    expect(before.headers.get("ETag")).toBe(`"${"c".repeat(64)}"`);
    // No longer immutable: a renewal rewrites the record.
    expect(before.headers.get("Cache-Control")).toBe("public, max-age=60");
    const packageBefore = await call(`/v1/public/proofs/${proofId}/package`);
    const zipBefore = new TextDecoder("latin1").decode(await packageBefore.arrayBuffer());
    expect(zipBefore).not.toContain("evidence-record.ers");

    await renewEvidenceRecords(workerContext(env), later(700), fakeAuthority().timestamper);

    const after = await callJson(`/v1/public/proofs/${proofId}`, { headers: { "If-None-Match": before.headers.get("ETag")! } });
    expect(after.status).toBe(200);
    expect(after.body.evidence_record).toEqual({ file: "evidence-record.ers", archive_timestamps: 1, last_renewed_at: expect.any(String), authority: "Fake" });
    expect(after.body.evidence_record.last_renewed_at).toBe((await row(proofId!)).renewed_at);
    expect(after.headers.get("ETag")).toBe(`"${"c".repeat(64)}.er1"`);
    const packageAfter = await call(`/v1/public/proofs/${proofId}/package`, { headers: { "If-None-Match": packageBefore.headers.get("ETag")! } });
    expect(packageAfter.status).toBe(200);
    expect(packageAfter.headers.get("ETag")).toBe(`"pkg-${"c".repeat(64)}.er1"`);
    expect(new TextDecoder("latin1").decode(await packageAfter.arrayBuffer())).toContain("evidence-record.ers");
  }, 60_000);
});

describe("hash-tree renewal when the digest algorithm is replaced", () => {
  it("with EVIDENCE_HASH_ALGORITHM set to SHA-512, every SHA-256 record is due at once and gets a new chain over its objects and the earlier chains", async () => {
    const [proofId] = await sealedProofs(1);
    const { timestamper } = fakeAuthority();
    await renewEvidenceRecords(workerContext(env), later(400), timestamper);
    const before = await row(proofId!);
    expect(before).toMatchObject({ archive_timestamps: 1, hash_algorithm: "SHA-256" });
    // Not due by date: only the algorithm makes it due. Other proofs of this file become due too; runs until this one is renewed.
    const replaced = workerContext({ ...env, EVIDENCE_HASH_ALGORITHM: "SHA-512" });
    const { calls, timestamper: sha512 } = fakeAuthority();
    for (let run = 0; run < 10 && (await row(proofId!)).hash_algorithm !== "SHA-512"; run++) await renewEvidenceRecords(replaced, later(461), sha512);
    expect(await row(proofId!)).toMatchObject({ archive_timestamps: 2, hash_algorithm: "SHA-512" });
    expect(calls.every((call) => call.root.length === 128)).toBe(true);
    const er = await record(before.record_key);
    expect(er.chains.map((chain) => chain.map((stamp) => stamp.digestAlgorithm))).toEqual([["SHA-256"], ["SHA-512"]]);
    const keys = proofArtifactKeys(proofId!, `run_${proofId}`);
    const objects = await Promise.all(
      [keys.manifest, keys.timestampResponse].map(async (key) => new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer())),
    );
    const expected = await hashTreeRenewalGroup("SHA-512", objects, [er.chains[0]!]);
    expect(er.chains[1]![0]!.reducedHashtree![0]!.map(hex).sort()).toEqual(expected.map(hex).sort());
    // The same proof is not due again under SHA-512 until its date.
    await renewEvidenceRecords(replaced, later(600), fakeAuthority().timestamper);
    expect((await row(proofId!)).archive_timestamps).toBe(2);
  }, 60_000);
});

describe("the RFC 4998 hash tree and its DER", () => {
  const h = (text: string) => digest("SHA-256", new TextEncoder().encode(text));

  it("sorts each list in binary ascending order before hashing, so the order of siblings does not matter", async () => {
    const [a, b] = [await h("a"), await h("b")];
    const [low, high] = [a, b].sort((x, y) => hex(x).localeCompare(hex(y)));
    const expected = await digest("SHA-256", low!, high!);
    expect(hex((await buildHashTree("SHA-256", [[a], [b]])).root)).toBe(hex(expected));
    expect(hex((await buildHashTree("SHA-256", [[b], [a]])).root)).toBe(hex(expected));
    // Not the unsorted concatenation when it differs.
    expect(hex(expected)).not.toBe(hex(await digest("SHA-256", high!, low!)));
  });

  it("gives every leaf of a tree of 7 a reduced tree that leads to the root, and none that leads there from another leaf", async () => {
    const groups = await Promise.all(Array.from({ length: 7 }, async (_, i) => [await h(`manifest ${i}`), await h(`token ${i}`)]));
    const tree = await buildHashTree("SHA-256", groups);
    for (const reduced of tree.reduced) expect(hex(await rootOfReducedTree("SHA-256", reduced))).toBe(hex(tree.root));
    const forged = [[await h("manifest X"), await h("token 0")], ...tree.reduced[0]!.slice(1)];
    expect(hex(await rootOfReducedTree("SHA-256", forged))).not.toBe(hex(tree.root));
  });

  it("round-trips an EvidenceRecord through DER, chains and algorithms included", async () => {
    const tree = await buildHashTree("SHA-256", [[await h("m"), await h("t")], [await h("x")]]);
    const original = {
      chains: [
        [
          { digestAlgorithm: "SHA-256" as const, reducedHashtree: tree.reduced[0]!, timeStamp: TOKEN },
          { digestAlgorithm: "SHA-256" as const, reducedHashtree: [[await h("previous")]], timeStamp: TOKEN },
        ],
        [{ digestAlgorithm: "SHA-512" as const, reducedHashtree: [[await digest("SHA-512", new Uint8Array([1]))]], timeStamp: TOKEN }],
      ],
    };
    const der = encodeEvidenceRecord(original);
    expect(decodeEvidenceRecord(der)).toEqual(original);
    // EvidenceRecord ::= SEQUENCE { version 1, digestAlgorithms, archiveTimeStampSequence }: starts with SEQUENCE, INTEGER 1.
    expect([...der.subarray(0, 1)]).toEqual([0x30]);
    expect(hex(encodeEvidenceRecord(decodeEvidenceRecord(der)))).toBe(hex(der));
    expect(() => decodeEvidenceRecord(der.subarray(0, der.length - 1))).toThrow();
  });

  it("a timestamp renewal covers the previous archive timestamp's token and every earlier one of its chain, as Bouncy Castle checks", async () => {
    const tokens = [new Uint8Array([0x30, 1]), new Uint8Array([0x30, 2]), new Uint8Array([0x30, 3])];
    const stamp = (timeStamp: Uint8Array) => ({ digestAlgorithm: "SHA-256" as const, reducedHashtree: [[new Uint8Array(32)]], timeStamp });
    const chain = tokens.map(stamp);
    const leaf = await nextLeaf({ chains: [chain] }, "SHA-256", async () => []);
    // RFC 4998 §5.3 step 2 needs the previous one's; Bouncy Castle's ERSEvidenceRecord.validate every earlier one of the chain.
    const hashes = await Promise.all(tokens.map((token) => digest("SHA-256", token)));
    expect(leaf.map(hex).sort()).toEqual(hashes.map(hex).sort());
    // A chain's second archive timestamp covers exactly the first.
    expect((await nextLeaf({ chains: [chain.slice(0, 1)] }, "SHA-256", async () => [])).map(hex)).toEqual([hex(hashes[0]!)]);
  });
});
