import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { packagedArtifactKey, proofArtifactKeys } from "../../src/storage/objects/bucket.ts";
import { V2_CHAIN_PEM, V2_MANIFEST, V2_MANIFEST_SHA256, V2_P7S_BASE64, V2_SERVICE_ROOT_PEM, V2_TSR_BASE64 } from "./fixtures/sealed-proof-v2.ts";

const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
import { rateLimitAddressKey } from "../../src/lib/client-address.ts";

/** A sealed proof whose stored artifacts are the genuine version-2 package of fixtures/sealed-proof-v2.ts, its manifest as given. */
async function sealedWithArtifacts(manifest: string) {
  const org = await createOrganization();
  const { proofId } = await insertPendingProof(org.id, "test", 1);
  await env.DB.prepare("UPDATE proofs SET status = 'sealed', manifest_sha256 = ?, timestamp_gen_time = ?, sealed_at = ? WHERE id = ?")
    .bind(V2_MANIFEST_SHA256, new Date().toISOString(), new Date().toISOString(), proofId)
    .run();
  const keys = proofArtifactKeys(proofId, null);
  await env.FILES.put(keys.manifest, manifest);
  await env.FILES.put(packagedArtifactKey(proofId, null, "manifest.p7s"), bytes(V2_P7S_BASE64));
  await env.FILES.put(keys.timestampResponse, bytes(V2_TSR_BASE64));
  await env.FILES.put(keys.timestampChain, V2_CHAIN_PEM);
  await env.FILES.put(keys.c2paTrustAnchor, V2_SERVICE_ROOT_PEM);
  return proofId;
}

describe("public verification", () => {
  it("reports a tampered manifest as invalid, naming the failed checks, and reveals nothing private", async () => {
    const proofId = await sealedWithArtifacts(V2_MANIFEST.replace("ref-fixture-v2", "ref-forged!!"));
    const { status, body, headers } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(status).toBe(200);
    expect(body.verification.status).toBe("invalid");
    expect(body.verification.test_mode).toBe(true);
    const failed = body.verification.checks.filter((c: any) => c.result === "fail").map((c: any) => c.name);
    // Another manifest is a data mismatch only: the authority's signature, signer and chain still hold (issue 14 point 6),
    // and the seal over the whole proof no longer covers it (issue 24).
    expect(failed).toEqual(expect.arrayContaining(["manifest_seal", "timestamp_imprint"]));
    for (const unrelated of ["timestamp_signature", "timestamp_signer", "timestamp_chain"]) expect(failed).not.toContain(unrelated);
    expect(headers.get("ETag")).toBe(`"${V2_MANIFEST_SHA256}"`);
    // Not immutable since evidence records (issue 14 point 5): a renewal rewrites what the answer says.
    expect(headers.get("Cache-Control")).toBe("public, max-age=60");
    expect(JSON.stringify(body)).not.toMatch(/org_|sk_(test|live)_|\/c\/|capture_url|session_id/);
  });

  it("serves a sealed proof's public answer from the edge cache once computed", async () => {
    const proofId = await sealedWithArtifacts(V2_MANIFEST);
    const first = await callJson(`/v1/public/proofs/${proofId}`);
    await new Promise((done) => setTimeout(done, 50));
    const cached = await caches.default.match(new Request(`http://localhost:8787/v1/public/proofs/${proofId}`));
    expect(cached).toBeDefined();
    expect(await cached!.json()).toEqual(first.body);
  });

  it("accepts the authority's real token over the real manifest", async () => {
    const proofId = await sealedWithArtifacts(V2_MANIFEST);
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    const passed = body.verification.checks.filter((c: any) => c.result === "pass").map((c: any) => c.name);
    expect(passed).toEqual(expect.arrayContaining(["manifest_seal", "timestamp_signature", "timestamp_signer", "timestamp_imprint", "timestamp_chain"]));
  });

  it("answers 404 proof_not_found for an unknown proof, and no-store while pending", async () => {
    expect((await callJson("/v1/public/proofs/prf_nope")).body.code).toBe("proof_not_found");
    const org = await createOrganization();
    const { proofId } = await insertPendingProof(org.id, "live", 1);
    const pending = await callJson(`/v1/public/proofs/${proofId}`);
    expect(pending.body.verification.status).toBe("pending");
    expect(pending.headers.get("Cache-Control")).toBe("no-store");
  });

  it("limits verification by file per client address", async () => {
    const ip = `198.51.100.${Math.floor(Math.random() * 200)}`;
    const results = [];
    for (let i = 0; i < 31; i++) results.push(await callJson("/v1/public/verify", { body: { sha256: "a".repeat(64) }, headers: { "CF-Connecting-IP": ip } }));
    expect(results.slice(0, 30).every((r) => r.status === 200)).toBe(true);
    expect(results[30]!.body.code).toBe("rate_limited");
    expect(results[30]!.headers.get("Retry-After")).not.toBeNull();
  });

  it("limits IPv6 clients per /64, whatever address of it they rotate to", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const results = [];
    for (let i = 0; i < 31; i++) {
      const address = `${prefix}:${(i + 1).toString(16)}${i % 2 === 0 ? "::1" : ":0:0:abcd"}`;
      results.push(await callJson("/v1/public/verify", { body: { sha256: "a".repeat(64) }, headers: { "CF-Connecting-IP": address } }));
    }
    expect(results.slice(0, 30).every((r) => r.status === 200)).toBe(true);
    expect(results[30]!.body.code).toBe("rate_limited");
    const neighbour = await callJson("/v1/public/verify", {
      body: { sha256: "a".repeat(64) },
      headers: { "CF-Connecting-IP": `${prefix.replace(/:[0-9a-f]+$/, ":ffff")}::1` },
    });
    expect(neighbour.status).toBe(200);
  });

  it("keys addresses for the limit: IPv4 whole, IPv6 on its /64 in one spelling", () => {
    expect(rateLimitAddressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(rateLimitAddressKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(rateLimitAddressKey("2001:DB8:0:0a::1")).toBe("2001:db8:0:a::/64");
    expect(rateLimitAddressKey("2001:0db8:0000:000a:ffff:1:2:3")).toBe("2001:db8:0:a::/64");
    expect(rateLimitAddressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(rateLimitAddressKey("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
    expect(rateLimitAddressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });

  it("can be called from any web page (CORS), while the integrator API cannot", async () => {
    const proofId = await sealedWithArtifacts(V2_MANIFEST);
    const read = await call(`/v1/public/proofs/${proofId}`, { headers: { Origin: "https://verifier.example" } });
    await read.body?.cancel();
    expect(read.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(read.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
    // A page calling verify can read how many verifications it has left.
    expect(read.headers.get("Access-Control-Expose-Headers")).toContain("RateLimit-Remaining");
    await new Promise((done) => setTimeout(done, 50));
    const fromEdgeCache = await call(`/v1/public/proofs/${proofId}`, { headers: { Origin: "https://verifier.example" } });
    await fromEdgeCache.body?.cancel();
    expect(fromEdgeCache.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const preflight = await call("/v1/public/verify", {
      method: "OPTIONS",
      headers: { Origin: "https://verifier.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toContain("POST");
    const privateRoute = await call("/v1/proofs", { headers: { Origin: "https://verifier.example" } });
    await privateRoute.body?.cancel();
    expect(privateRoute.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
