import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { packagedArtifactKey } from "../../src/storage/objects/bucket.ts";
import { MAX_REVOCATION_ENTRIES, RevocationIndexSchema, type RevocationEntry } from "../../shared/revocation-data.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { storedZipBytes } from "./support/stored-zip.ts";
import { C2PA_REVOCATION, TSA_REVOCATION } from "./fixtures/revocation.ts";
import { filesOfProof } from "./support/proof-files.ts";

const der = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

async function sealedWith(revocation: RevocationEntry[]) {
  const org = await createOrganization();
  const { proofId } = await insertPendingProof(org.id, "test", 1);
  const { deps } = dependencies(async (job) => ({ ...sealedAnswer(job), revocation }));
  expect(await sealProof(deps, proofId)).toBe("sealed");
  const run = (await env.DB.prepare("SELECT sealing_run FROM proofs WHERE id = ?").bind(proofId).first<{ sealing_run: string }>())!.sealing_run;
  // The stand-in sealer uploads nothing: the package needs the signed copy's bytes.
  for (const file of await filesOfProof(proofId)) await env.FILES.put(file.signedKey!, "signed bytes");
  return { proofId, run };
}

async function packageOf(proofId: string) {
  const response = await call(`/v1/public/proofs/${proofId}/package`);
  expect(response.status).toBe(200);
  return storedZipBytes(new Uint8Array(await response.arrayBuffer()));
}

describe("revocation data captured at sealing, in storage, the package and the public JSON", () => {
  it("stores both chains' CRLs beside the token and puts them in the package under stable names, with VERIFY.md's openssl commands", async () => {
    const { proofId, run } = await sealedWith([TSA_REVOCATION, C2PA_REVOCATION]);
    const stored = await env.FILES.get(packagedArtifactKey(proofId, run, "revocation/tsa-1.crl"));
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(der(TSA_REVOCATION.crl_base64!));

    const entries = await packageOf(proofId);
    expect([...entries.keys()].filter((name) => name.startsWith("revocation/")).sort()).toEqual([
      "revocation/c2pa-1.crl",
      "revocation/c2pa-1.pem",
      "revocation/index.json",
      "revocation/tsa-1.crl",
      "revocation/tsa-1.pem",
    ]);
    expect(entries.get("revocation/tsa-1.crl")).toEqual(der(TSA_REVOCATION.crl_base64!));
    expect(entries.get("revocation/c2pa-1.crl")).toEqual(der(C2PA_REVOCATION.crl_base64!));
    expect(new TextDecoder().decode(entries.get("revocation/tsa-1.pem"))).toContain(TSA_REVOCATION.certificate_base64.slice(0, 64));
    const index = JSON.parse(new TextDecoder().decode(entries.get("revocation/index.json")));
    expect(
      index.map((entry: { chain: string; status: string; crl: string; certificate: string }) => [entry.chain, entry.status, entry.certificate, entry.crl]),
    ).toEqual([
      ["tsa", "captured", "revocation/tsa-1.pem", "revocation/tsa-1.crl"],
      ["c2pa", "captured", "revocation/c2pa-1.pem", "revocation/c2pa-1.crl"],
    ]);

    const markdown = new TextDecoder().decode(entries.get("VERIFY.md"));
    for (const chain of ["tsa", "c2pa"]) {
      expect(markdown).toContain(`openssl crl -inform DER -in revocation/${chain}-1.crl`);
      expect(markdown).toMatch(new RegExp(`openssl verify -crl_check -CRLfile revocation/${chain}-1.crl .* -attime \\d+ revocation/${chain}-1.pem`));
    }
    // The proof seal's certificate, issued by the service root like the C2PA signer, against the same CRL.
    expect(markdown).toContain("openssl pkcs7 -inform DER -in manifest.p7s -print_certs -out seal-certificate.pem");
    expect(markdown).toMatch(/openssl verify -crl_check -CRLfile revocation\/c2pa-1\.crl -CAfile service-root\.pem -attime \d+ seal-certificate\.pem/);

    const published = await callJson(`/v1/public/proofs/${proofId}`);
    expect(published.body.revocation).toEqual(index);
    expect(published.body.revocation[0]).toMatchObject({
      chain: "tsa",
      status: "captured",
      source: TSA_REVOCATION.source,
      captured_at: TSA_REVOCATION.captured_at,
      this_update: TSA_REVOCATION.this_update,
    });
  });

  it("says honestly what could not be captured: no CRL in the package for it, its reason in the index, the public JSON and VERIFY.md", async () => {
    const unavailable: RevocationEntry = {
      ...C2PA_REVOCATION,
      status: "unavailable",
      crl_base64: null,
      this_update: null,
      next_update: null,
      reason: "http://crl.example/root.crl unreachable: timeout",
    };
    const { proofId } = await sealedWith([TSA_REVOCATION, unavailable]);
    const entries = await packageOf(proofId);
    expect(entries.has("revocation/c2pa-1.crl")).toBe(false);
    expect(entries.has("revocation/c2pa-1.pem")).toBe(true);
    const published = await callJson(`/v1/public/proofs/${proofId}`);
    expect(published.body.revocation[1]).toMatchObject({ chain: "c2pa", status: "unavailable", crl: null, reason: unavailable.reason });
    const markdown = new TextDecoder().decode(entries.get("VERIFY.md"));
    expect(markdown).toContain(unavailable.reason);
    expect(markdown).not.toContain("-CRLfile revocation/c2pa-1.crl");
  });

  it("an intermediate in a chain: VERIFY.md checks the signer's CRL with the intermediate and the intermediate's with the root", async () => {
    const intermediate: RevocationEntry = { ...TSA_REVOCATION, position: 2, subject: "C=FR, CN=Some Intermediate CA" };
    const { proofId } = await sealedWith([TSA_REVOCATION, intermediate, C2PA_REVOCATION]);
    const markdown = new TextDecoder().decode((await packageOf(proofId)).get("VERIFY.md"));
    expect(markdown).toContain("openssl crl -inform DER -in revocation/tsa-1.crl -CAfile revocation/tsa-2.pem -noout");
    expect(markdown).toMatch(
      /openssl verify -crl_check -CRLfile revocation\/tsa-1\.crl -CAfile tsa-root\.pem -untrusted chain\.pem -untrusted revocation\/tsa-2\.pem -attime \d+ revocation\/tsa-1\.pem/,
    );
    expect(markdown).toContain("openssl crl -inform DER -in revocation/tsa-2.crl -CAfile tsa-root.pem -noout");
    expect(markdown).toMatch(
      /openssl verify -crl_check -CRLfile revocation\/tsa-2\.crl -CAfile tsa-root\.pem -untrusted chain\.pem -attime \d+ revocation\/tsa-2\.pem/,
    );
  });

  it("a proof sealed before revocation data was captured: none in the package, null in the public JSON, and VERIFY.md says so", async () => {
    const { proofId, run } = await sealedWith([]);
    // As such a proof is stored: no index, and no seal either (manifest.p7s came after revocation data, and a proof
    // with a seal missing its index is a package that cannot be served whole: test/api/verification-package.test.ts).
    await env.FILES.delete(packagedArtifactKey(proofId, run, "revocation/index.json"));
    await env.FILES.delete(packagedArtifactKey(proofId, run, "manifest.p7s"));
    await env.DB.prepare("UPDATE proofs SET seal_certificate_sha256 = NULL WHERE id = ?").bind(proofId).run();
    const entries = await packageOf(proofId);
    expect([...entries.keys()].some((name) => name.startsWith("revocation/"))).toBe(false);
    expect((await callJson(`/v1/public/proofs/${proofId}`)).body.revocation).toBeNull();
    expect(new TextDecoder().decode(entries.get("VERIFY.md"))).toContain("sealed before the service captured revocation data");
  });
});

describe("a stored revocation index longer than sealing writes", () => {
  // Forger session 8, I1: every entry names two files read on each public request, and the index is an object an
  // insider can replace; 3,000 well-formed entries cost 6,000 reads a request.
  const entry = (chain: "tsa" | "c2pa" | "seal", position: number) => ({
    chain,
    position,
    subject: "CN=Test",
    serial: "0A",
    status: "unavailable" as const,
    source: null,
    captured_at: "2026-11-27T00:00:00.000Z",
    this_update: null,
    next_update: null,
    reason: "none published",
    certificate: `revocation/${chain}-${position}.pem`,
    crl: null,
  });

  it("is no index: a position past a chain's tenth certificate, or more entries than three chains of ten", () => {
    const full = (["tsa", "c2pa", "seal"] as const).flatMap((chain) => Array.from({ length: 10 }, (_, index) => entry(chain, index + 1)));
    expect(full).toHaveLength(MAX_REVOCATION_ENTRIES);
    expect(RevocationIndexSchema.safeParse(full).success).toBe(true);
    expect(RevocationIndexSchema.safeParse([entry("tsa", 11)]).success).toBe(false);
    expect(RevocationIndexSchema.safeParse([...full, entry("tsa", 1)]).success).toBe(false);
    expect(RevocationIndexSchema.safeParse(Array.from({ length: 3000 }, (_, index) => entry("tsa", index + 1))).success).toBe(false);
  });
});
