import { test } from "node:test";
import assert from "node:assert/strict";
import { runSealJob } from "../src/seal-job.ts";
import { revocationFiles, type RevocationEntry } from "../../shared/revocation-data.ts";
import { pemCertificatesDer } from "../../shared/timestamp-check.ts";
import { checkManifestSeal } from "../../shared/verification/manifest-seal.ts";
import { checkRevocation } from "../../shared/verification/check-revocation.ts";
import { pem, sealContext } from "./support.ts";
import { job } from "./storage-stand-in.ts";

/**
 * docs/adr/0049: manifest.p7s lists the SHA-256 of every revocation file, and the seal's certificate has its own
 * entry. Checked with the verification core on a proof the sealer sealed, its revocation data as the Worker
 * stores and packages it (revocationFiles).
 */
async function sealedProof() {
  const result = await runSealJob(sealContext("live"), job([{ name: "photo.jpg", type: "image/jpeg" }]));
  if (result.status !== "sealed") throw new Error("not sealed");
  const manifest = new TextEncoder().encode(result.manifest);
  const anchors = pemCertificatesDer(pem("c2pa-root.pem"));
  const seal = await checkManifestSeal(
    new Uint8Array(Buffer.from(result.manifest_p7s_base64, "base64")),
    manifest,
    anchors,
    new Date(result.timestamp.gen_time),
  );
  assert.ok(seal.ok, seal.detail);
  const tsaSigner = result.revocation.find((entry) => entry.chain === "tsa" && entry.position === 1)!;
  const input = {
    genTime: result.timestamp.gen_time,
    tsaSigner: new Uint8Array(Buffer.from(tsaSigner.certificate_base64, "base64")),
    tsaRoot: pemCertificatesDer(pem("tsa-live-root.pem"))[0]!,
    c2paRoots: anchors,
    c2paSignerSerials: [],
    indexRequired: true,
    seal: seal.certificate,
    sealedFiles: seal.revocationFiles,
  };
  return { result, seal, input };
}

const entriesOf = (revocation: RevocationEntry[]) =>
  new Map(revocationFiles(revocation).map(({ name, body }) => [name, typeof body === "string" ? new TextEncoder().encode(body) : body]));
const results = (checks: { name: string; result: string }[]) => Object.fromEntries(checks.map((check) => [check.name, check.result]));

test("manifest.p7s lists every revocation file the package holds, the seal's own entry among them, and the core finds them sealed", async () => {
  const { result, seal, input } = await sealedProof();
  assert.deepEqual(
    [...seal.revocationFiles!.keys()].sort(),
    revocationFiles(result.revocation)
      .map((file) => file.name)
      .sort(),
  );
  assert.ok(seal.revocationFiles!.has("revocation/seal-1.pem") && seal.revocationFiles!.has("revocation/seal-1.crl"));
  const { checks, summary } = await checkRevocation(entriesOf(result.revocation), input);
  assert.deepEqual(results(checks), { revocation_sealed: "pass", "revocation:tsa-1": "pass", "revocation:c2pa-1": "pass", "revocation:seal-1": "pass" });
  assert.equal(summary.seal.status, "checked");
});

test("an index edited to say a CRL was not captured (the CRL removed) fails revocation_sealed: not captured is the service's word only", async () => {
  const { result, input } = await sealedProof();
  const edited = result.revocation.map((entry) =>
    entry.chain === "c2pa" ? { ...entry, status: "unavailable" as const, crl_base64: null, this_update: null, next_update: null, reason: "no answer" } : entry,
  );
  const { checks } = await checkRevocation(entriesOf(edited), input);
  assert.equal(results(checks)["revocation:c2pa-1"], "not_checked");
  const sealed = checks.find((check) => check.name === "revocation_sealed")!;
  assert.equal(sealed.result, "fail");
  assert.match(sealed.detail, /altered: revocation\/index\.json; missing: revocation\/c2pa-1\.crl/);
});

test("the seal's entry must name manifest.p7s's certificate, and a sealed index must name the seal's signer", async () => {
  const { result, input } = await sealedProof();
  const otherCertificate = result.revocation.find((entry) => entry.chain === "c2pa")!.certificate_base64;
  const swapped = result.revocation.map((entry) => (entry.chain === "seal" ? { ...entry, certificate_base64: otherCertificate } : entry));
  assert.equal(results((await checkRevocation(entriesOf(swapped), { ...input, sealedFiles: null })).checks)["revocation:seal-1"], "fail");
  // A seal that does not hold names no certificate to judge: its entry is not checked (manifest_seal fails instead).
  assert.equal(
    results((await checkRevocation(entriesOf(result.revocation), { ...input, seal: null, sealedFiles: null })).checks)["revocation:seal-1"],
    "not_checked",
  );
  const withoutSeal = result.revocation.filter((entry) => entry.chain !== "seal");
  const { checks } = await checkRevocation(entriesOf(withoutSeal), input);
  assert.equal(results(checks)["revocation:seal-1"], "fail");
  assert.equal(results(checks).revocation_sealed, "fail");
});
