import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSealJob } from "../src/seal-job.ts";
import { localCrlUrl } from "../src/pki/ensure-local-pki.ts";
import { issueCertificate } from "../src/pki/issue-certificate.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { CertificateRevokedError, captureRevocation } from "../src/revocation/capture-revocation.ts";
import { CrlUnavailableError, crlSource } from "../src/revocation/crl-source.ts";
import { pemCertificatesDer } from "../../shared/timestamp-check.ts";
import { certificatePem } from "../../shared/revocation-data.ts";
import { pem, pkiDir, sealContext } from "./support.ts";
import { job } from "./storage-stand-in.ts";

/** openssl's output, stdout and stderr together (it prints some verdicts on stderr); throws when it fails. */
function openssl(args: string[], cwd: string): string {
  const run = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return run.stdout + run.stderr;
}
const onePhoto = (mode: "test" | "live") => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  return { ...sealJob, proof: { ...sealJob.proof, mode } };
};

/** A root and a leaf whose CRL distribution point is `url`, made with openssl in a fresh folder. */
function pkiWithCrlAt(url: string) {
  const dir = mkdtempSync(join(tmpdir(), "crl-pki-"));
  writeFileSync(
    join(dir, "x.cnf"),
    `[req]\ndistinguished_name = dn\n[dn]\n[root]\nbasicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\n[leaf]\nbasicConstraints = critical, CA:FALSE\ncrlDistributionPoints = URI:${url}\n`,
  );
  writeFileSync(join(dir, "ca.cnf"), "[ca]\ndefault_ca = x\n[x]\ndatabase = index.txt\ncrlnumber = crlnumber\ndefault_md = sha256\ndefault_crl_days = 1\n");
  writeFileSync(join(dir, "index.txt"), "");
  writeFileSync(join(dir, "crlnumber"), "01\n");
  for (const [name, subject, issuer] of [
    ["root", "/CN=CRL Test Root", null],
    ["other", "/CN=CRL Test Root", null],
    ["leaf", "/CN=CRL Test Leaf", "root"],
  ] as const)
    issueCertificate(dir, { name, subject, issuer, days: 2, config: "x.cnf", extensions: issuer === null ? "root" : "leaf" });
  // A CRL by the genuine root, and one by another key under the same name (not the issuer's signature).
  for (const signer of ["root", "other"]) {
    openssl(["ca", "-config", "ca.cnf", "-gencrl", "-keyfile", `${signer}.key`, "-cert", `${signer}.pem`, "-out", `${signer}.crl.pem`], dir);
    openssl(["crl", "-in", `${signer}.crl.pem`, "-outform", "DER", "-out", `${signer}.crl`], dir);
  }
  const der = (name: string) => pemCertificatesDer(readFileSync(join(dir, `${name}.pem`), "utf8"))[0]!;
  return { dir, leaf: der("leaf"), root: der("root"), crl: (signer: "root" | "other") => new Uint8Array(readFileSync(join(dir, `${signer}.crl`))) };
}

/** A CRL server on loopback answering with `answer` for each request, counted. */
async function crlServer(answer: (count: number) => { status: number; body?: Uint8Array } | "hang") {
  let count = 0;
  const server: Server = createServer((_req, res) => {
    const reply = answer(++count);
    if (reply === "hang") return;
    res.writeHead(reply.status, { "Content-Type": "application/pkix-crl" });
    res.end(reply.body ? Buffer.from(reply.body) : undefined);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/root.crl`,
    requests: () => count,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test("the local PKI publishes a CRL for each issuing CA: every signer names its root's, which openssl verifies and finds it not revoked", () => {
  for (const [signer, root] of [
    ["tsa-test", "tsa-test-root"],
    ["tsa-live", "tsa-live-root"],
    ["c2pa-signer", "c2pa-root"],
    ["c2pa-test-signer", "c2pa-test-root"],
  ]) {
    assert.match(openssl(["x509", "-in", `${signer}.pem`, "-noout", "-ext", "crlDistributionPoints"], pkiDir), new RegExp(`URI:${localCrlUrl(root!)}`));
    assert.match(openssl(["crl", "-inform", "DER", "-in", `${root}.crl`, "-CAfile", `${root}.pem`, "-noout"], pkiDir), /verify OK/);
    assert.match(openssl(["verify", "-crl_check", "-CRLfile", `${root}.crl`, "-CAfile", `${root}.pem`, `${signer}.pem`], pkiDir), /: OK/);
  }
});

for (const mode of ["test", "live"] as const) {
  test(`sealing a ${mode} proof captures the CRLs of the three chains (authority, C2PA signer, proof seal), each verified by openssl against its issuing root`, async () => {
    const result = await runSealJob(sealContext(mode), onePhoto(mode));
    assert.equal(result.status, "sealed");
    if (result.status !== "sealed") return;
    const [tsaRoot, c2paRoot, tsaSigner, c2paSigner, sealSigner] =
      mode === "test"
        ? ["tsa-test-root", "c2pa-test-root", "tsa-test", "c2pa-test-signer", "proof-seal-test"]
        : ["tsa-live-root", "c2pa-root", "tsa-live", "c2pa-signer", "proof-seal"];
    assert.deepEqual(
      result.revocation.map((entry) => `${entry.chain}-${entry.position}:${entry.status}`),
      ["tsa-1:captured", "c2pa-1:captured", "seal-1:captured"],
    );
    const dir = mkdtempSync(join(tmpdir(), "captured-"));
    for (const [entry, root, signer] of [
      [result.revocation[0]!, tsaRoot, tsaSigner],
      [result.revocation[1]!, c2paRoot, c2paSigner],
      [result.revocation[2]!, c2paRoot, sealSigner],
    ] as const) {
      assert.equal(entry.source, localCrlUrl(root));
      assert.equal(certificatePem(entry.certificate_base64), pem(`${signer}.pem`).replace(/\r/g, ""));
      assert.ok(Date.parse(entry.this_update!) <= Date.now() && Date.parse(entry.next_update!) > Date.parse(result.timestamp.gen_time));
      writeFileSync(join(dir, `${entry.chain}.crl`), Buffer.from(entry.crl_base64!, "base64"));
      writeFileSync(join(dir, `${entry.chain}.pem`), certificatePem(entry.certificate_base64));
      assert.match(
        openssl(["verify", "-crl_check", "-CRLfile", `${entry.chain}.crl`, "-CAfile", join(pkiDir, `${root}.pem`), `${entry.chain}.pem`], dir),
        /: OK/,
      );
    }
  });
}

test("an unreachable CRL is no reason to hold the seal back, and is never recorded as if it held: the entry says unavailable and why", async () => {
  const failing = { fetch: async () => Promise.reject(new CrlUnavailableError("http://crl.example/root.crl unreachable: connect ECONNREFUSED")) };
  const result = await runSealJob({ ...sealContext(), crls: failing }, onePhoto("test"));
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  assert.deepEqual(
    result.revocation.map((entry) => [entry.chain, entry.status, entry.crl_base64, entry.this_update]),
    [
      ["tsa", "unavailable", null, null],
      ["c2pa", "unavailable", null, null],
      ["seal", "unavailable", null, null],
    ],
  );
  for (const entry of result.revocation) assert.match(entry.reason!, /unreachable: connect ECONNREFUSED/);
});

test("a network CRL: retried once after a failure, kept until its nextUpdate, fetched again after it; a silent server times out", async () => {
  let pki: ReturnType<typeof pkiWithCrlAt>;
  const server = await crlServer((count) => (count === 1 ? { status: 503 } : { status: 200, body: pki.crl("root") }));
  pki = pkiWithCrlAt(server.url);
  let now = Date.now();
  const source = crlSource({ localPkiDir: pkiDir, timeoutMs: 2000, now: () => now });
  try {
    const [first] = await captureRevocation(source, "c2pa", pki.leaf, [pki.root]);
    assert.equal(first!.status, "captured");
    assert.equal(first!.source, server.url);
    assert.equal(server.requests(), 2, "the 503 was retried");
    await captureRevocation(source, "c2pa", pki.leaf, [pki.root]);
    assert.equal(server.requests(), 2, "cached until nextUpdate");
    now += 2 * 24 * 3600_000;
    await captureRevocation(source, "c2pa", pki.leaf, [pki.root]).catch(() => undefined);
    assert.equal(server.requests(), 3, "fetched again once nextUpdate passed");
  } finally {
    server.close();
  }
  const silent = await crlServer(() => "hang");
  const hanging = pkiWithCrlAt(silent.url);
  try {
    const started = Date.now();
    const [entry] = await captureRevocation(crlSource({ localPkiDir: pkiDir, timeoutMs: 300, attempts: 1 }), "tsa", hanging.leaf, [hanging.root]);
    assert.equal(entry!.status, "unavailable");
    assert.match(entry!.reason!, /unreachable/);
    assert.ok(Date.now() - started < 2000);
  } finally {
    silent.close();
  }
});

test("a CRL served as PEM is kept as DER", async () => {
  let pki: ReturnType<typeof pkiWithCrlAt>;
  const server = await crlServer(() => ({ status: 200, body: new TextEncoder().encode(readFileSync(join(pki.dir, "root.crl.pem"), "utf8")) }));
  pki = pkiWithCrlAt(server.url);
  try {
    const [entry] = await captureRevocation(crlSource({ localPkiDir: pkiDir }), "tsa", pki.leaf, [pki.root]);
    assert.equal(entry!.status, "captured");
    assert.deepEqual(new Uint8Array(Buffer.from(entry!.crl_base64!, "base64")), pki.crl("root"));
  } finally {
    server.close();
  }
});

test("a CRL that its certificate's issuer did not sign is recorded as unavailable, not as captured", async () => {
  let pki: ReturnType<typeof pkiWithCrlAt>;
  const server = await crlServer(() => ({ status: 200, body: pki.crl("other") }));
  pki = pkiWithCrlAt(server.url);
  try {
    const [entry] = await captureRevocation(crlSource({ localPkiDir: pkiDir }), "tsa", pki.leaf, [pki.root]);
    assert.equal(entry!.status, "unavailable");
    assert.match(entry!.reason!, /not signed by the certificate's issuer/);
  } finally {
    server.close();
  }
});

test("a revoked authority certificate stops the seal: nothing is timestamped under a certificate its CA has revoked", async () => {
  const copy = join(mkdtempSync(join(tmpdir(), "revoked-pki-")), "pki");
  cpSync(pkiDir, copy, { recursive: true });
  openssl(["ca", "-config", "tsa-test-root-ca.cnf", "-revoke", "tsa-test.pem", "-crl_reason", "keyCompromise"], copy);
  const context = { ...sealContext(), authority: simulatedAuthority(copy, "tsa-test", "Simulated TSA"), crls: crlSource({ localPkiDir: copy }) };
  await assert.rejects(
    runSealJob(context, onePhoto("test")),
    (error: Error) => error instanceof CertificateRevokedError && /Simulated TSA.*revoked.*keyCompromise/.test(error.message),
  );
});

test("a revoked proof seal certificate stops the seal: no proof is sealed with a key its CA has revoked", async () => {
  const copy = join(mkdtempSync(join(tmpdir(), "revoked-seal-pki-")), "pki");
  cpSync(pkiDir, copy, { recursive: true });
  openssl(["ca", "-config", "c2pa-test-root-ca.cnf", "-revoke", "proof-seal-test.pem", "-crl_reason", "keyCompromise"], copy);
  const context = { ...sealContext(), crls: crlSource({ localPkiDir: copy }) };
  await assert.rejects(
    runSealJob(context, onePhoto("test")),
    (error: Error) => error instanceof CertificateRevokedError && /proof seal certificate .*Proof Seal.*revoked.*keyCompromise/.test(error.message),
  );
});

test("a CRL's verdict is kept with that CRL only: a certificate revoked in a newer CRL is found revoked", async () => {
  let pki: ReturnType<typeof pkiWithCrlAt>;
  let served: "before" | "after" = "before";
  const server = await crlServer(() => ({
    status: 200,
    body: served === "before" ? pki.crl("root") : new Uint8Array(readFileSync(join(pki.dir, "root-after.crl"))),
  }));
  pki = pkiWithCrlAt(server.url);
  try {
    const [before] = await captureRevocation(crlSource({ localPkiDir: pkiDir }), "tsa", pki.leaf, [pki.root]);
    assert.equal(before!.status, "captured");
    openssl(["ca", "-config", "ca.cnf", "-keyfile", "root.key", "-cert", "root.pem", "-revoke", "leaf.pem", "-crl_reason", "keyCompromise"], pki.dir);
    openssl(["ca", "-config", "ca.cnf", "-gencrl", "-keyfile", "root.key", "-cert", "root.pem", "-out", "root-after.crl.pem"], pki.dir);
    openssl(["crl", "-in", "root-after.crl.pem", "-outform", "DER", "-out", "root-after.crl"], pki.dir);
    served = "after";
    // A new source, as after the first CRL's nextUpdate: the same certificate and issuer, another CRL.
    await assert.rejects(
      captureRevocation(crlSource({ localPkiDir: pkiDir }), "tsa", pki.leaf, [pki.root]),
      (error: Error) => error instanceof CertificateRevokedError && /keyCompromise/.test(error.message),
    );
  } finally {
    server.close();
  }
});
