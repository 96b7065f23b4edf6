import { execFileSync, spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { signWithC2pa } from "../../sealer/src/c2pa/c2pa.ts";
import { loadSigningKey } from "../../sealer/src/c2pa/cose.ts";
import { ensureLocalPki } from "../../sealer/src/pki/ensure-local-pki.ts";
import { issueCertificate } from "../../sealer/src/pki/issue-certificate.ts";
import { type FileEvidence, type VerificationPins, verifyProof } from "../../shared/verification/verify-proof-core.ts";
import { readC2pa } from "../../verifier/src/read-c2pa.ts";
import { fixture } from "./support/capture.ts";
import {
  evidenceRecordWithOpenssl,
  genuineEvidence,
  type Manifest,
  makePki,
  manifestBytes,
  manifestV2,
  type PackageFile,
  type Pki,
  revocationWithOpenssl,
  sealWithOpenssl,
  sha256,
  stampWithOpenssl,
} from "./support/openssl-package.ts";

/**
 * The one verification core (shared/verification, issue 24) on packages made with openssl alone: the proof
 * seal (manifest.p7s), the token, the pins, the sealed file list and each file's evidence, long-term trust,
 * test proofs. No stack: the files' C2PA readings are given as evidence, as proof-verify and the Worker give them.
 */

const bytes = (text: string) => new TextEncoder().encode(text);
const DIGITAL_CAPTURE = "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture";
const FILES: PackageFile[] = [
  {
    id: "med_photo1",
    step_id: "photos",
    position: 1,
    content_type: "image/jpeg",
    signed: bytes("signed jpeg 1"),
    sha256: sha256("original jpeg 1"),
    prior_credentials: false,
  },
  {
    id: "med_photo2",
    step_id: "photos",
    position: 2,
    content_type: "image/png",
    signed: bytes("signed png 2"),
    sha256: sha256("original png 2"),
    prior_credentials: false,
  },
  // A JPEG that arrived with earlier Content Credentials: without APP11 it is not the original (issue 24, point 5).
  {
    id: "med_photo3",
    step_id: "photos",
    position: 3,
    content_type: "image/jpeg",
    signed: bytes("signed jpeg 3"),
    sha256: sha256("original jpeg 3"),
    prior_credentials: true,
  },
  {
    id: "med_clip1",
    step_id: "walkaround",
    position: 1,
    content_type: "video/webm",
    signed: bytes("webm as received"),
    sha256: sha256("webm as received"),
    prior_credentials: false,
  },
];

let pki: Pki;
/** revocation/ as captured at sealing: the authority's signer and the C2PA signer, each with its issuer's CRL. */
let revocation: Map<string, Uint8Array>;
const CAPTURED = [
  { chain: "tsa", certificate: "tsa", issuer: "tsa-root" },
  { chain: "c2pa", certificate: "seal-email", issuer: "service-root" },
] as const;
beforeAll(() => {
  pki = makePki();
  revocation = revocationWithOpenssl(pki, [...CAPTURED]);
});

interface Built {
  manifest: Manifest;
  entries: Map<string, Uint8Array>;
  files: Map<string, FileEvidence>;
}

/** A genuine package: the manifest sealed (manifest.p7s) and stamped (proof.tsr), each file's evidence as c2pa-rs reads a genuine one. */
function build(proof: Record<string, unknown> = {}, files: PackageFile[] = FILES): Built {
  const manifest = manifestV2(proof, files);
  const json = manifestBytes(manifest);
  const entries = new Map<string, Uint8Array>([
    ["manifest.json", json],
    ["manifest.p7s", sealWithOpenssl(pki, json)],
    ["proof.tsr", stampWithOpenssl(pki, { data: json })],
    ["chain.pem", bytes(pki.tsaRootPem)],
    ["c2pa-trust-anchor.pem", bytes(pki.serviceRootPem)],
    ...revocation,
  ]);
  const evidence = new Map(
    files.map((file) => [
      file.id,
      {
        ...genuineEvidence(
          manifest,
          file,
          file.content_type === "image/jpeg" ? (file.prior_credentials ? sha256("jpeg 3 with its earlier APP11 removed") : file.sha256) : null,
          pki.c2paSignerDer,
        ),
        // c2pa-rs cannot read WebM: proof-verify gives no reading.
        ...(file.content_type === "video/webm" ? { c2pa: null } : {}),
      },
    ]),
  );
  return { manifest, entries, files: evidence };
}

const pinned = (): VerificationPins => ({ tsaRootSha256: pki.tsaRootSha256, serviceRootSha256: pki.serviceRootSha256 });
const verify = (built: Built, options: { pins?: VerificationPins; now?: Date; source?: "package" | "storage" } = {}) =>
  verifyProof({ entries: built.entries, files: built.files, pins: options.pins ?? pinned(), now: options.now ?? new Date(), source: options.source });
const failed = (result: Awaited<ReturnType<typeof verifyProof>>) => result.checks.filter((check) => check.result === "fail").map((check) => check.name);
const check = (result: Awaited<ReturnType<typeof verifyProof>>, name: string) => result.checks.find((one) => one.name === name);
/** What an evidence record covers: manifest.json, proof.tsr and the revocation/ files in name order. */
const evidenceObjects = (entries: Map<string, Uint8Array>) => [
  entries.get("manifest.json")!,
  entries.get("proof.tsr")!,
  ...[...entries.keys()]
    .filter((name) => name.startsWith("revocation/"))
    .sort()
    .map((name) => entries.get(name)!),
];

describe("the verification core (shared/verification/verify-proof-core.ts)", () => {
  it("verifies a genuine package with both roots pinned, under the stable check names", async () => {
    const built = build();
    const result = await verify(built);
    expect(failed(result)).toEqual([]);
    expect(result).toMatchObject({
      verdict: "verified",
      verdict_line: "VERIFIED",
      test_mode: false,
      proof_id: "prf_core1",
      manifest_version: 2,
      manifest_sha256: sha256(built.entries.get("manifest.json")!),
      tsa_root_sha256: pki.tsaRootSha256,
      service_root_sha256: pki.serviceRootSha256,
      pinned: { tsa: true, service: true },
      seal: { signer_subject: "C=FR, O=Verify Core Test, CN=Proof Seal" },
      files_checked_at: "2026-11-26T12:00:00.000Z",
    });
    expect(result.checks.map((one) => one.name)).toEqual([
      "package_complete",
      "package_contents",
      "timestamp_imprint",
      "timestamp_signature",
      "timestamp_signer",
      "timestamp_chain",
      "tsa_root_pinned",
      "service_root_pinned",
      "manifest_seal",
      "files_listed",
      ...FILES.flatMap((file) => [`file_hash:${file.id}`, `file_c2pa:${file.id}`, `file_names_proof:${file.id}`, `file_original:${file.id}`]),
      "revocation",
      "report",
      "pair_report",
      "evidence_record",
      "long_term",
      "mode",
    ]);
    // What cannot be checked here is said, never counted as holding (this package carries no report).
    expect(result.checks.filter((one) => one.result === "not_checked").map((one) => one.name)).toEqual([
      "file_original:med_photo2",
      "file_original:med_photo3",
      "file_c2pa:med_clip1",
      "file_names_proof:med_clip1",
      "report",
      "pair_report",
      "evidence_record",
    ]);
  });

  it("a genuine proof whose JPEG arrived with earlier Content Credentials verifies: its original is not checked, and says why", async () => {
    const result = await verify(build());
    expect(result.verdict).toBe("verified");
    expect(check(result, "file_original:med_photo3")).toMatchObject({ result: "not_checked", detail: expect.stringContaining("earlier Content Credentials") });
    // The same stripped JPEG without the manifest's prior_credentials is not the original: the skip rests on the sealed flag.
    const unflagged = build(
      {},
      FILES.map((file) => (file.id === "med_photo3" ? { ...file, prior_credentials: false } : file)),
    );
    unflagged.files.set("med_photo3", { ...unflagged.files.get("med_photo3")!, original_sha256: sha256("jpeg 3 with its earlier APP11 removed") });
    expect(failed(await verify(unflagged))).toEqual(["file_original:med_photo3"]);
  });

  it("refuses a relabelled manifest (another party, reference and proof id) re-stamped by the same authority: manifest_seal fails", async () => {
    const genuine = build();
    const relabelled = build({ proof_id: "prf_other", external_reference: "LEASE-43", party: "recipient" });
    // The forger keeps the genuine seal (it cannot make the service's) over the new, re-stamped manifest.
    relabelled.entries.set("manifest.p7s", genuine.entries.get("manifest.p7s")!);
    const result = await verify(relabelled);
    expect(failed(result)).toEqual(["manifest_seal"]);
    expect(check(result, "manifest_seal")!.detail).toContain("not made over this manifest.json");
    expect(result.verdict).toBe("not_verified");
  });

  it("refuses a seal made by another CA (the forger's) once the service root is pinned, and never verifies it unpinned", async () => {
    const forger = makePki();
    const forged = build({ party: "recipient" });
    const json = forged.entries.get("manifest.json")!;
    forged.entries.set("manifest.p7s", sealWithOpenssl(forger, json));
    forged.entries.set("c2pa-trust-anchor.pem", bytes(forger.serviceRootPem));
    // Its files signed by its own C2PA signer, issued by its root (named like the genuine one, as makePki names both).
    for (const [id, evidence] of forged.files)
      forged.files.set(id, { ...evidence, c2pa: evidence.c2pa && { ...evidence.c2pa, signerCertificate: forger.c2paSignerDer } });
    // Its own C2PA signer's CRL too, beside the genuine authority's: a package consistent with itself.
    const own = revocationWithOpenssl(forger, [CAPTURED[1]]);
    const indexOf = (entries: Map<string, Uint8Array>) => JSON.parse(new TextDecoder().decode(entries.get("revocation/index.json")!)) as { chain: string }[];
    for (const [name, content] of own) forged.entries.set(name, content);
    forged.entries.set("revocation/index.json", bytes(JSON.stringify([...indexOf(revocation).filter((entry) => entry.chain === "tsa"), ...indexOf(own)])));
    // Pinned: neither the seal, nor the files' C2PA signer, nor its CRL has a trusted root.
    const pinnedResult = await verify(forged);
    expect(failed(pinnedResult)).toEqual([
      "service_root_pinned",
      "manifest_seal",
      "file_c2pa:med_photo1",
      "file_c2pa:med_photo2",
      "file_c2pa:med_photo3",
      "revocation",
    ]);
    const unpinned = await verify(forged, { pins: { tsaRootSha256: pki.tsaRootSha256 } });
    expect(failed(unpinned)).toEqual([]);
    expect(unpinned.verdict).toBe("origin_not_established");
    // The genuine root in the package beside the forger's: neither the seal nor the files' signer (issued by a root of
    // the same name, not by the pinned root's key) chains to the pinned root.
    forged.entries.set("c2pa-trust-anchor.pem", bytes(`${pki.serviceRootPem}${forger.serviceRootPem}`));
    expect(failed(await verify(forged))).toEqual([
      "service_root_pinned",
      "manifest_seal",
      "file_c2pa:med_photo1",
      "file_c2pa:med_photo2",
      "file_c2pa:med_photo3",
      "revocation",
    ]);
  });

  it("refuses a seal without the ESS signing-certificate attribute, or by a certificate not for document signing", async () => {
    const noEss = build();
    noEss.entries.set("manifest.p7s", sealWithOpenssl(pki, noEss.entries.get("manifest.json")!, { cades: false }));
    const a = await verify(noEss);
    expect(failed(a)).toEqual(["manifest_seal"]);
    expect(check(a, "manifest_seal")!.detail).toContain("signingCertificateV2");

    const email = build();
    email.entries.set("manifest.p7s", sealWithOpenssl(pki, email.entries.get("manifest.json")!, { signer: "seal-email" }));
    const b = await verify(email);
    expect(failed(b)).toEqual(["manifest_seal"]);
    expect(check(b, "manifest_seal")!.detail).toContain("not certified for document signing");
  });

  it("says a version-1 package (no manifest.p7s) was sealed before proofs were sealed as a whole, and never verifies it", async () => {
    const built = build({ version: 1 });
    built.entries.delete("manifest.p7s");
    const result = await verify(built);
    expect(failed(result)).toEqual(["manifest_seal"]);
    expect(check(result, "manifest_seal")!.detail).toContain("sealed before proofs were sealed as a whole");
    expect(check(result, "package_complete")!.result).toBe("pass");
    // A version-2 package without its seal is incomplete.
    const stripped = build();
    stripped.entries.delete("manifest.p7s");
    expect(failed(await verify(stripped))).toEqual(["package_complete", "manifest_seal"]);
  });

  it("refuses a package with a file dropped, a file added from another proof, or a file signed for another proof", async () => {
    const dropped = build();
    dropped.files.delete("med_photo2");
    const a = await verify(dropped);
    expect(failed(a)).toEqual(["files_listed", "file_hash:med_photo2"]);
    expect(check(a, "files_listed")!.detail).toContain("missing: med_photo2");

    const other = build({ proof_id: "prf_other", external_reference: "LEASE-99" }, [{ ...FILES[0]!, id: "med_other", signed: bytes("other signed jpeg") }]);
    const added = build();
    added.files.set("med_other", other.files.get("med_other")!);
    const b = await verify(added);
    expect(failed(b)).toEqual(["files_listed"]);
    expect(check(b, "files_listed")!.detail).toMatch(/not in the sealed manifest: med_other; signed for another proof: med_other/);

    // The sealed hash of a file whose signed capture assertion names another proof (and another step).
    const foreign = build();
    const evidence = foreign.files.get("med_photo1")!;
    foreign.files.set("med_photo1", {
      ...evidence,
      c2pa: { ...evidence.c2pa!, capture: { ...other.files.get("med_other")!.c2pa!.capture, step_id: "photos", position: 1 } },
    });
    const c = await verify(foreign);
    expect(failed(c)).toEqual(["files_listed", "file_names_proof:med_photo1"]);
    expect(check(c, "file_names_proof:med_photo1")!.detail).toContain('proof_id "prf_other" (manifest: "prf_core1")');

    // c2pa-rs reads an assertion's null as no key: a missing compare_to is the manifest's null, a missing party is not.
    const read = build();
    const jpeg = read.files.get("med_photo1")!;
    const { compare_to: _null, ...withoutCompareTo } = jpeg.c2pa!.capture!;
    read.files.set("med_photo1", { ...jpeg, c2pa: { ...jpeg.c2pa!, capture: withoutCompareTo } });
    expect(failed(await verify(read))).toEqual([]);
    const { party: _party, ...withoutParty } = withoutCompareTo;
    read.files.set("med_photo1", { ...jpeg, c2pa: { ...jpeg.c2pa!, capture: withoutParty } });
    expect(check(await verify(read), "file_names_proof:med_photo1")).toMatchObject({
      result: "fail",
      detail: expect.stringContaining('party nothing (manifest: "provider")'),
    });

    // Another position in the same step: only the file's own naming fails.
    const moved = build();
    const second = moved.files.get("med_photo2")!;
    moved.files.set("med_photo2", { ...second, c2pa: { ...second.c2pa!, capture: { ...second.c2pa!.capture, position: 1 } } });
    expect(failed(await verify(moved))).toEqual(["file_names_proof:med_photo2"]);
  });

  it("refuses a replaced file (hash) and a file c2pa-rs does not trust; a changed stored object is altered", async () => {
    const replaced = build();
    replaced.files.set("med_photo2", { ...replaced.files.get("med_photo2")!, sha256: sha256("another png") });
    expect(failed(await verify(replaced))).toEqual(["file_hash:med_photo2"]);
    expect((await verify(replaced)).verdict).toBe("not_verified");
    expect((await verify(replaced, { source: "storage" })).verdict).toBe("altered");

    const untrusted = build();
    const evidence = untrusted.files.get("med_photo1")!;
    untrusted.files.set("med_photo1", { ...evidence, c2pa: { ...evidence.c2pa!, state: "Valid", failures: ["signingCredential.untrusted"] } });
    const result = await verify(untrusted, { source: "storage" });
    expect(failed(result)).toEqual(["file_c2pa:med_photo1"]);
    expect(result.verdict).toBe("not_verified");
  });

  it("refuses a file whose C2PA signer, Trusted by c2pa-rs, was not issued by the service root's key (the authority's root, or a CA of the same name)", async () => {
    const withSigner = (built: Built, signerCertificate: Uint8Array | null) =>
      built.files.set("med_photo1", { ...built.files.get("med_photo1")!, c2pa: { ...built.files.get("med_photo1")!.c2pa!, signerCertificate } });
    const pemDer = (file: string) => new Uint8Array(new X509Certificate(readFileSync(file)).raw);
    // c2pa-rs is given the authority's root beside the service root (the C2PA timestamps chain to it): a signer
    // issued under the authority's root reads Trusted too. Here the authority's own certificate stands for it.
    const built = build();
    withSigner(built, pemDer(join(pki.dir, "tsa.pem")));
    const result = await verify(built);
    expect(failed(result)).toEqual(["file_c2pa:med_photo1"]);
    expect(check(result, "file_c2pa:med_photo1")!.detail).toContain("not issued by the service root C=FR, O=Verify Core Test, CN=Service Root");
    // A signer c2pa-rs did not give is not taken for the service root's.
    withSigner(built, null);
    expect(failed(await verify(built))).toEqual(["file_c2pa:med_photo1"]);
    // A forger's CA with the service root's very name issues a signer: its issuer reads the same, its signature
    // does not verify under the service root's key.
    const forger = mkdtempSync(join(tmpdir(), "core-forger-ca-"));
    writeFileSync(join(forger, "extensions.cnf"), readFileSync(join(pki.dir, "extensions.cnf")));
    const issue = (name: string, subject: string, issuer: string | null, extensions: string) =>
      issueCertificate(forger, { name, subject, issuer, days: 3650, config: "extensions.cnf", extensions });
    issue("service-root", "/C=FR/O=Verify Core Test/CN=Service Root", null, "root");
    issue("c2pa-signer", "/C=FR/O=Verify Core Test/CN=C2PA Signer", "service-root", "email");
    const forged = pemDer(join(forger, "c2pa-signer.pem"));
    expect(new X509Certificate(readFileSync(join(forger, "c2pa-signer.pem"))).issuer).toBe(new X509Certificate(pki.serviceRootPem).subject);
    withSigner(built, forged);
    const named = await verify(built);
    expect(failed(named)).toEqual(["file_c2pa:med_photo1"]);
    expect(check(named, "file_c2pa:med_photo1")!.detail).toContain("does not verify under that root's key");
    // The genuine signer passes.
    withSigner(built, pki.c2paSignerDer);
    expect(failed(await verify(built))).toEqual([]);
  });

  it("never says verified without both pins: origin not established when everything else holds", async () => {
    const built = build();
    for (const pins of [{}, { tsaRootSha256: pki.tsaRootSha256 }, { serviceRootSha256: pki.serviceRootSha256 }]) {
      const result = await verify(built, { pins });
      expect(failed(result)).toEqual([]);
      expect(result.verdict).toBe("origin_not_established");
      expect(result.verdict_line).toContain("ORIGIN NOT ESTABLISHED");
    }
    const unpinned = await verify(built, { pins: {} });
    expect(check(unpinned, "tsa_root_pinned")).toMatchObject({ result: "not_checked" });
    expect(check(unpinned, "service_root_pinned")).toMatchObject({ result: "not_checked" });
    // A wrong pin fails.
    expect(failed(await verify(built, { pins: { ...pinned(), tsaRootSha256: "00".repeat(32) } }))).toEqual(["tsa_root_pinned"]);
  });

  it("after the authority's certificate expired: not verified without an evidence record, verified with one renewed under a valid certificate", async () => {
    const built = build();
    const later = new Date(pki.tsaSignerNotAfter.getTime() + 365 * 86400_000);
    const without = await verify(built, { now: later });
    expect(failed(without)).toEqual(["long_term"]);
    expect(without.verdict).toBe("not_verified");
    expect(check(without, "long_term")!.detail).toMatch(/expired on .* no evidence record/);
    // Before it expired, the token stands on its own.
    expect(check(await verify(built, { now: new Date() }), "long_term")!.result).toBe("pass");

    built.entries.set("evidence-record.ers", await evidenceRecordWithOpenssl(pki, evidenceObjects(built.entries)));
    const renewed = await verify(built, { now: later });
    expect(failed(renewed)).toEqual([]);
    expect(renewed.verdict).toBe("verified");
    expect(check(renewed, "evidence_record")!.result).toBe("pass");

    // Once the latest renewal's certificate has expired too, renewal is overdue: not verified.
    const overdue = await verify(built, { now: new Date(pki.archiveSignerNotAfter.getTime() + 86400_000) });
    expect(failed(overdue)).toEqual(["long_term"]);
    expect(check(overdue, "long_term")!.detail).toContain("renewal is overdue");

    // An evidence record over another manifest does not count.
    const other = build({ external_reference: "LEASE-77" });
    built.entries.set("evidence-record.ers", await evidenceRecordWithOpenssl(pki, evidenceObjects(other.entries)));
    expect(failed(await verify(built, { now: later }))).toEqual(["evidence_record", "long_term"]);
  });

  it("refuses a token dated after the time of verification, beyond five minutes of clock skew (finding F4)", async () => {
    const built = build();
    const genTime = Date.parse((await verify(built)).gen_time!);
    // A verifier whose clock lags the authority's by a few minutes still verifies a proof just sealed.
    expect((await verify(built, { now: new Date(genTime - 4 * 60_000) })).verdict).toBe("verified");
    // Beyond that, the token was made by a key whose clock was set ahead: no honest authority dates the future.
    const early = await verify(built, { now: new Date(genTime - 6 * 60_000) });
    expect(failed(early)).toEqual(["timestamp_chain"]);
    expect(check(early, "timestamp_chain")!.detail).toContain("is after the time of verification");
    expect(early.verdict).toBe("not_verified");
  });

  it("checks the revocation data captured at sealing; a version-2 package without revocation/index.json fails (finding O1, ADR 0040)", async () => {
    const genuine = await verify(build());
    expect(check(genuine, "revocation")).toMatchObject({ result: "pass", detail: expect.stringContaining("not revoked at gen_time") });
    expect(genuine.revocation.steps.map((step) => [step.name, step.result])).toEqual([
      ["revocation:tsa-1", "pass"],
      ["revocation:c2pa-1", "pass"],
      ["revocation:seal", "pass"],
    ]);

    // Stripped of revocation/: nothing sealed says whether its CRLs could be had, so the package is refused.
    const stripped = build();
    for (const name of revocation.keys()) stripped.entries.delete(name);
    const refused = await verify(stripped);
    expect(failed(refused)).toEqual(["revocation"]);
    expect(check(refused, "revocation")!.detail).toContain("revocation/index.json is missing");
    // A version-1 package (sealed before revocation data was required) is not refused for it.
    const v1 = build({ version: 1 });
    for (const name of revocation.keys()) v1.entries.delete(name);
    v1.entries.delete("manifest.p7s");
    expect(failed(await verify(v1))).toEqual(["manifest_seal"]);

    // An index that leaves out a chain's signer fails too (an empty index would otherwise be as good as none).
    const index = JSON.parse(new TextDecoder().decode(revocation.get("revocation/index.json")!)) as { chain: string; status: string; reason: string | null }[];
    const partial = build();
    partial.entries.set("revocation/index.json", bytes(JSON.stringify(index.filter((entry) => entry.chain === "tsa"))));
    expect(failed(await verify(partial))).toEqual(["revocation"]);

    // A CRL the index says could not be had at sealing is reported with the reason, not failed.
    const unavailable = build();
    const reason = "http://localhost/pki/service-root.crl unreachable: connect ECONNREFUSED";
    unavailable.entries.set(
      "revocation/index.json",
      bytes(JSON.stringify(index.map((entry) => (entry.chain === "c2pa" ? { ...entry, status: "unavailable", crl: null, reason } : entry)))),
    );
    const reported = await verify(unavailable);
    expect(failed(reported)).toEqual([]);
    expect(reported.verdict).toBe("verified");
    expect(check(reported, "revocation")).toMatchObject({ result: "not_checked", detail: expect.stringContaining(reason) });
    // ... and the proof seal's certificate, which names the same CRL (the service root's), is not checked either.
    expect(reported.revocation.steps.find((step) => step.name === "revocation:seal")).toMatchObject({
      result: "not_checked",
      detail: expect.stringContaining("was not captured at sealing"),
    });

    // The C2PA signer listed on its issuer's CRL as compromised before gen_time: refused.
    const revoked = build();
    for (const [name, content] of revocationWithOpenssl(
      pki,
      [...CAPTURED],
      [{ certificate: "seal-email", issuer: "service-root", revokedSince: new Date(Date.now() - 86_400_000) }],
    ))
      revoked.entries.set(name, content);
    expect(failed(await verify(revoked))).toEqual(["revocation"]);
  });

  it("checks the proof seal's certificate against the service root's CRL captured at sealing, at gen_time (docs/adr/0027)", async () => {
    // The seal's certificate names the service root's CRL, captured for the C2PA signer (same issuer): listed there
    // as compromised before gen_time, the seal is refused.
    const revoked = build();
    for (const [name, content] of revocationWithOpenssl(
      pki,
      [...CAPTURED],
      [{ certificate: "seal", issuer: "service-root", revokedSince: new Date(Date.now() - 86_400_000) }],
    ))
      revoked.entries.set(name, content);
    const result = await verify(revoked);
    expect(failed(result)).toEqual(["revocation"]);
    expect(result.revocation.steps.filter((step) => step.result === "fail").map((step) => step.name)).toEqual(["revocation:seal"]);
    expect(check(result, "revocation")!.detail).toMatch(/revocation:seal the seal's certificate \(.*Proof Seal\) is listed as revoked .* before gen_time/);
    // Revoked after gen_time (the key compromised later): the proof predates it. (CRL dates are in whole seconds.)
    const later = build();
    await new Promise((done) => setTimeout(done, 1100));
    for (const [name, content] of revocationWithOpenssl(
      pki,
      [...CAPTURED],
      [{ certificate: "seal", issuer: "service-root", revokedSince: new Date(Date.now() + 86_400_000) }],
    ))
      later.entries.set(name, content);
    expect(failed(await verify(later))).toEqual([]);
  });

  it("says TEST in the verdict of a test proof", async () => {
    const result = await verify(build({ mode: "test" }));
    expect(result).toMatchObject({ verdict: "verified", test_mode: true, verdict_line: "VERIFIED (TEST PROOF, no legal value)" });
    expect(check(result, "mode")!.detail).toContain("TEST");
    const unpinned = await verify(build({ mode: "test" }), { pins: {} });
    expect(unpinned.verdict_line).toBe("ORIGIN NOT ESTABLISHED (consistent, but a root was not pinned) (TEST PROOF, no legal value)");
  });

  it("refuses a swapped token and an edited manifest", async () => {
    const swapped = build();
    swapped.entries.set("proof.tsr", build({ external_reference: "LEASE-5" }).entries.get("proof.tsr")!);
    expect(failed(await verify(swapped))).toEqual(["timestamp_imprint"]);

    const edited = build();
    const json = new TextDecoder().decode(edited.entries.get("manifest.json")!);
    edited.entries.set("manifest.json", bytes(json.replace('"LEASE-42"', '"LEASE-4X"')));
    // The files' capture assertions still name the genuine reference, too.
    expect(failed(await verify(edited))).toEqual([
      "timestamp_imprint",
      "manifest_seal",
      "file_names_proof:med_photo1",
      "file_names_proof:med_photo2",
      "file_names_proof:med_photo3",
    ]);
  });
});

describe("proof-verify's C2PA reading (verifier/src/read-c2pa.ts): the certificate of each file's signer", () => {
  it("reads the certificate of a genuine signer (the service root's) and of one issued under the authority's root, which c2pa-rs also trusts", async () => {
    const local = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "core-c2pa-")), "pki"));
    const pem = (name: string) => readFileSync(join(local, name), "utf8");
    const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: local, stdio: "pipe" });
    // A C2PA signer with the genuine signer's extensions, issued by the authority's root instead of the service root.
    issueCertificate(local, {
      name: "rogue",
      subject: "/C=FR/O=Proof Sealing Local/CN=Local C2PA Claim Signer",
      issuer: "tsa-live-root",
      days: 30,
      config: "extensions.cnf",
      extensions: "c2pa_signer",
      extensionFile: "c2pa-signer.ext",
    });
    openssl("pkcs8", "-topk8", "-nocrypt", "-in", "rogue.key", "-out", "rogue.pk8");
    const sign = (key: string, certificate: string) =>
      signWithC2pa(
        new Uint8Array(fixture("photo.jpg")),
        {
          title: "photo.jpg",
          format: "image/jpeg",
          assertions: [{ label: "c2pa.actions", data: { actions: [{ action: "c2pa.created", digitalSourceType: DIGITAL_CAPTURE }] }, created: true }],
        },
        { key: loadSigningKey(pem(key)), chainDer: [new Uint8Array(new X509Certificate(pem(certificate)).raw)], timestamp: null },
      );
    // What proof-verify gives c2pa-rs: the service root and the authority's root.
    const anchors = `${pem("c2pa-root.pem")}\n${pem("tsa-live-root.pem")}`;
    const der = (name: string) => new Uint8Array(new X509Certificate(pem(name)).raw);
    const genuine = await readC2pa(await sign("c2pa-signer.pk8", "c2pa-signer.pem"), "image/jpeg", anchors);
    expect(genuine).toMatchObject({ state: "Trusted", signerCertificate: der("c2pa-signer.pem") });
    const rogue = await readC2pa(await sign("rogue.pk8", "rogue.pem"), "image/jpeg", anchors);
    expect(rogue).toMatchObject({ state: "Trusted", signerCertificate: der("rogue.pem") });
  });
});

/** The folder of an unzipped package, as VERIFY.md's steps and proof-verify read it. */
function writeFolder(built: Built, files: PackageFile[]): string {
  const dir = mkdtempSync(join(tmpdir(), "core-package-"));
  for (const [name, content] of built.entries) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  mkdirSync(join(dir, "files"));
  for (const file of files) writeFileSync(join(dir, "files", `${file.id}.webm`), file.signed);
  return dir;
}

describe("proof-verify from the repository's root (npx proof-verify, the verifier/ workspace)", () => {
  const root = resolve(import.meta.dirname, "../..");
  const npx = (...args: string[]) => spawnSync("npx", ["--no-install", "proof-verify", ...args], { cwd: root, encoding: "utf8" });
  // A WebM cannot carry Content Credentials: a package of one WebM needs no C2PA signing to verify end to end.
  const webm = FILES.filter((file) => file.content_type === "video/webm");

  it("prints its usage and exit codes with --help", () => {
    const help = npx("--help");
    expect(help.status).toBe(0);
    expect(help.stderr).toContain("--service-root-sha256");
    expect(help.stderr).toMatch(/3 {2}ORIGIN NOT ESTABLISHED/);
    expect(npx("a.zip", "--tsa-root-sha256", "abc").status).toBe(2);
    expect(npx("a.zip", "--service-root-sha256", "aa".repeat(32), "--c2pa-root-sha256", "bb".repeat(32)).status).toBe(2);
  });

  it("exits 0 verified with both pins, 3 without them, 1 on a relabelled package; --json carries the verdict and test_mode", () => {
    const folder = writeFolder(build({}, webm), webm);
    const pins = ["--tsa-root-sha256", pki.tsaRootSha256, "--service-root-sha256", pki.serviceRootSha256];
    const verified = npx(folder, ...pins);
    expect(verified.stdout).toContain("\nVERIFIED\n");
    expect(verified.status).toBe(0);
    // The former name of the service root's pin still works.
    expect(npx(folder, "--tsa-root-sha256", pki.tsaRootSha256, "--c2pa-root-sha256", pki.serviceRootSha256).status).toBe(0);

    const unpinned = npx(folder, "--json");
    expect(unpinned.status).toBe(3);
    expect(JSON.parse(unpinned.stdout)).toMatchObject({ verdict: "origin_not_established", test_mode: false });
    expect(npx(folder).stdout).not.toMatch(/^VERIFIED/m);

    const relabelled = build({ party: "recipient" }, webm);
    relabelled.entries.set("manifest.p7s", build({}, webm).entries.get("manifest.p7s")!);
    const refused = npx(writeFolder(relabelled, webm), ...pins, "--json");
    expect(refused.status).toBe(1);
    expect(
      JSON.parse(refused.stdout)
        .checks.filter((one: { result: string }) => one.result === "fail")
        .map((one: { name: string }) => one.name),
    ).toEqual(["manifest_seal"]);

    // A file hidden in a sub-folder of files/ is a file of the package, which the sealed manifest does not list.
    mkdirSync(join(folder, "files", "more"));
    writeFileSync(join(folder, "files", "more", "med_clip1.webm"), webm[0]!.signed);
    const hidden = npx(folder, ...pins, "--json");
    expect(hidden.status).toBe(1);
    expect(JSON.parse(hidden.stdout).checks.find((one: { name: string }) => one.name === "files_listed").detail).toContain("more/med_clip1");

    // A ZIP holding manifest.json twice (unzip and proof-verify could each read another) is refused as unreadable.
    const twice = join(mkdtempSync(join(tmpdir(), "core-zip-")), "package.zip");
    spawnSync("zip", ["-qr", twice, "."], { cwd: writeFolder(build({}, webm), webm) });
    const zipped = readFileSync(twice);
    const renamed = Buffer.from(zipped.toString("latin1").replaceAll("chain.pem", "proof.tsr"), "latin1");
    writeFileSync(twice, renamed);
    const duplicate = npx(twice, ...pins, "--json");
    expect(duplicate.status).toBe(1);
    expect(JSON.parse(duplicate.stdout).checks[0].detail).toContain("proof.tsr: twice in the ZIP");

    const test = npx(writeFolder(build({ mode: "test" }, webm), webm), ...pins);
    expect(test.status).toBe(0);
    expect(test.stdout).toContain("VERIFIED (TEST PROOF, no legal value)");
  });
});
