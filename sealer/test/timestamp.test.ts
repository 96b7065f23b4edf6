import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";
import { httpAuthority, TimestampUnavailableError } from "../src/tsa/authority.ts";
import { simulatedAuthority, timeStampRequestFields } from "../src/tsa/simulated-authority.ts";
import { pem, pkiDir, sha256 } from "./support.ts";
import { rogueAuthority } from "./rogue-authority.ts";
import { generalizedTime, integer } from "../src/tsa/der.ts";
import { checkTimestamp, TimestampCheckReuse } from "../../shared/timestamp-check.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function opensslVerify(tsr: Uint8Array, digest: string, chain: string): string {
  const dir = mkdtempSync(join(tmpdir(), "verify-"));
  writeFileSync(join(dir, "proof.tsr"), tsr);
  writeFileSync(join(dir, "chain.pem"), chain);
  try {
    return execFileSync("openssl", ["ts", "-verify", "-digest", digest, "-in", "proof.tsr", "-CAfile", "chain.pem"], { cwd: dir, stdio: "pipe" }).toString();
  } catch (error) {
    return String((error as { stdout?: Buffer }).stdout ?? error);
  }
}

test("the simulated authority's tokens pass openssl ts -verify for their digest only", async () => {
  const digest = sha256("manifest bytes");
  const stamp = await obtainTimestamp(simulatedAuthority(pkiDir, "tsa-test", "Simulated"), bytes("manifest bytes"));
  assert.match(opensslVerify(stamp.response, digest, pem("tsa-test-root.pem")), /Verification: OK/);
  assert.doesNotMatch(opensslVerify(stamp.response, sha256("other bytes"), pem("tsa-test-root.pem")), /Verification: OK/);
  assert.ok(Math.abs(Date.parse(stamp.genTime) - Date.now()) < 60_000);
  assert.equal(stamp.policy, "1.3.6.1.4.1.99999.1.1");
  assert.equal(stamp.qualified, false);
});

test("the simulated authority's tokens name it: openssl ts -reply -text prints the signer's subject as TSA", async () => {
  const stamp = await obtainTimestamp(simulatedAuthority(pkiDir, "tsa-test", "Simulated"), bytes("named"));
  const dir = mkdtempSync(join(tmpdir(), "text-"));
  writeFileSync(join(dir, "proof.tsr"), stamp.response);
  const text = execFileSync("openssl", ["ts", "-reply", "-in", "proof.tsr", "-text"], { cwd: dir, stdio: "pipe" }).toString();
  // The same one-line form (`/C=…/O=…/CN=…`) openssl uses for the TSA name, taken from the certificate.
  const subject = execFileSync("openssl", ["x509", "-noout", "-subject", "-nameopt", "compat"], { input: pem("tsa-test.pem") })
    .toString()
    .trim()
    .replace(/^subject=/, "");
  assert.match(subject, /CN=Simulated TSA/);
  assert.ok(text.includes(`TSA: DirName:${subject}\n`), text);
  assert.doesNotMatch(text, /TSA: unspecified/);
});

test("genTime is written as RFC 3161 §2.4.2 requires: no trailing zeros in the fraction, none at all when it is zero", () => {
  const text = (date: Date) => Buffer.from(generalizedTime(date).subarray(2)).toString("latin1");
  assert.equal(text(new Date("2026-11-23T12:24:56.039Z")), "20261123122456.039Z");
  assert.equal(text(new Date("2026-11-23T12:24:56.040Z")), "20261123122456.04Z");
  assert.equal(text(new Date("2026-11-23T12:24:56.000Z")), "20261123122456Z");
  assert.deepEqual([...integer(new Uint8Array([0, 0, 0x7f]))], [0x02, 0x01, 0x7f]);
  assert.deepEqual([...integer(new Uint8Array([0, 0x80]))], [0x02, 0x02, 0x00, 0x80]);
});

test("a token chaining to another root is refused before use", async () => {
  const wrongChain = { ...simulatedAuthority(pkiDir, "tsa-test", "Simulated"), chainPem: pem("tsa-live-root.pem") };
  await assert.rejects(obtainTimestamp(wrongChain, bytes("x")), TimestampUnavailableError);
});

test("a response for another request (other digest or nonce) is refused", async () => {
  const authority = simulatedAuthority(pkiDir, "tsa-test", "Simulated");
  const replayed = await obtainTimestamp(authority, bytes("first"));
  const replaying = { ...authority, respond: async () => replayed.response };
  await assert.rejects(obtainTimestamp(replaying, bytes("second")), TimestampUnavailableError);
});

test("a certificate without the timeStamping usage cannot sign accepted tokens", async () => {
  // Reuse the C2PA signer (emailProtection, no timeStamping) as if it were an authority.
  const dir = mkdtempSync(join(tmpdir(), "badtsa-"));
  const cnf = join(dir, "bad.cnf");
  writeFileSync(join(dir, "serial"), "01\n");
  writeFileSync(
    cnf,
    `[tsa]\ndefault_tsa = bad\n[bad]\ndir = ${dir}\nserial = $dir/serial\nsigner_cert = ${pkiDir}/c2pa-signer.pem\ncerts = ${pkiDir}/c2pa-signer.pem\nsigner_key = ${pkiDir}/c2pa-signer.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4\ndigests = sha256\ness_cert_id_alg = sha256\n`,
  );
  const bad = {
    name: "bad",
    chainPem: pem("c2pa-root.pem"),
    qualifiedCertsPem: "",
    respond: async (request: Uint8Array) => {
      writeFileSync(join(dir, "q.tsq"), request);
      try {
        execFileSync("openssl", ["ts", "-reply", "-queryfile", "q.tsq", "-config", cnf, "-out", "r.tsr"], { cwd: dir, stdio: "pipe" });
      } catch {
        throw new TimestampUnavailableError("openssl refused to sign with that certificate");
      }
      return new Uint8Array(execFileSync("cat", [join(dir, "r.tsr")]));
    },
  };
  await assert.rejects(obtainTimestamp(bad, bytes("x")), TimestampUnavailableError);
});

test("a validly signed token is still refused when its signer is not certified for timestamping (RFC 3161 §2.3)", async () => {
  // The same responder with the authority's own certificate and key is accepted: only the usage differs.
  const control = await obtainTimestamp(rogueAuthority(pem("tsa-test.pem"), pem("tsa-test.pk8"), pem("tsa-test-root.pem")), bytes("x"));
  assert.match(opensslVerify(control.response, sha256("x"), pem("tsa-test-root.pem")), /Verification: OK/);
  const rogue = rogueAuthority(pem("c2pa-signer.pem"), pem("c2pa-signer.pk8"), pem("c2pa-root.pem"));
  // Twice: the second check finds that signer's chain already known, and must still look at its usage.
  for (let round = 0; round < 2; round++) await assert.rejects(obtainTimestamp(rogue, bytes("x")), /not certified for timestamping/);
});

test("a token signed by the right kind of certificate but the wrong key is refused", async () => {
  const rogue = rogueAuthority(pem("tsa-test.pem"), pem("c2pa-signer.pk8"), pem("tsa-test-root.pem"));
  await assert.rejects(obtainTimestamp(rogue, bytes("x")), TimestampUnavailableError);
});

test("a token whose signature names no certificate (no ESS signing-certificate attribute) is refused", async () => {
  const unbound = rogueAuthority(pem("tsa-test.pem"), pem("tsa-test.pk8"), pem("tsa-test-root.pem"), { essCertId: false });
  await assert.rejects(obtainTimestamp(unbound, bytes("x")), /signing-certificate/);
});

test("a token for the same digest but another nonce is refused", async () => {
  const authority = simulatedAuthority(pkiDir, "tsa-test", "Simulated");
  const earlier = await obtainTimestamp(authority, bytes("same"));
  await assert.rejects(obtainTimestamp({ ...authority, respond: async () => earlier.response }, bytes("same")), /nonce/);
});

test("a token from an expired authority certificate is refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "expired-tsa-"));
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  writeFileSync(join(dir, "index.txt"), "");
  writeFileSync(join(dir, "serial"), "1000\n");
  writeFileSync(
    join(dir, "ca.cnf"),
    `[ca]\ndefault_ca = local\n[local]\ndir = ${dir}\ndatabase = $dir/index.txt\nnew_certs_dir = $dir\nserial = $dir/serial\ndefault_md = sha256\npolicy = any\ncopy_extensions = none\nunique_subject = no\n[any]\ncommonName = supplied\n[tsa]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature, nonRepudiation\nextendedKeyUsage = critical, timeStamping\n[req]\ndistinguished_name = dn\n[dn]\n`,
  );
  run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "tsa.key"]);
  run(["req", "-new", "-key", "tsa.key", "-subj", "/CN=Expired TSA", "-out", "tsa.csr", "-config", "ca.cnf"]);
  run([
    "ca",
    "-batch",
    "-config",
    "ca.cnf",
    "-cert",
    join(pkiDir, "tsa-live-root.pem"),
    "-keyfile",
    join(pkiDir, "tsa-live-root.key"),
    "-in",
    "tsa.csr",
    "-out",
    "tsa.pem",
    "-startdate",
    "20200101000000Z",
    "-enddate",
    "20210101000000Z",
    "-extensions",
    "tsa",
    "-notext",
  ]);
  writeFileSync(join(dir, "tsa-serial"), "01\n");
  writeFileSync(
    join(dir, "reply.cnf"),
    `[tsa]\ndefault_tsa = t\n[t]\ndir = ${dir}\nserial = $dir/tsa-serial\nsigner_cert = $dir/tsa.pem\ncerts = $dir/tsa.pem\nsigner_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4\ndigests = sha256\ness_cert_id_alg = sha256\n`,
  );
  const expired = {
    name: "expired",
    chainPem: pem("tsa-live-root.pem"),
    qualifiedCertsPem: "",
    respond: async (request: Uint8Array) => {
      writeFileSync(join(dir, "q.tsq"), request);
      run(["ts", "-reply", "-queryfile", "q.tsq", "-config", "reply.cnf", "-out", "r.tsr"]);
      return new Uint8Array(readFileSync(join(dir, "r.tsr")));
    },
  };
  await assert.rejects(obtainTimestamp(expired, bytes("x")), TimestampUnavailableError);
});

test("the live path: a real TSA (the simulated one behind HTTP) is requested, checked, and qualified when configured", async () => {
  const { createServer } = await import("node:http");
  const local = simulatedAuthority(pkiDir, "tsa-live", "Local");
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    assert.equal(req.headers["content-type"], "application/timestamp-query");
    const reply = await local.respond(new Uint8Array(Buffer.concat(chunks)));
    res.writeHead(200, { "Content-Type": "application/timestamp-reply" }).end(Buffer.from(reply));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  try {
    const url = `http://127.0.0.1:${port}/tsa`;
    const plain = await obtainTimestamp(httpAuthority(url, "Local", pem("tsa-live-root.pem"), ""), bytes("m"));
    assert.equal(plain.qualified, false);
    const qualified = await obtainTimestamp(httpAuthority(url, "Local", pem("tsa-live-root.pem"), pem("tsa-live.pem")), bytes("m"));
    assert.equal(qualified.qualified, true);
    assert.match(opensslVerify(qualified.response, sha256("m"), pem("tsa-live-root.pem")), /Verification: OK/);
  } finally {
    server.close();
  }
  await assert.rejects(obtainTimestamp(httpAuthority(`http://127.0.0.1:${port}/tsa`, "gone", "", ""), bytes("m")), TimestampUnavailableError);
});

test("the simulated authority reads the requests openssl ts -query makes, and refuses one with bytes after it", () => {
  const dir = mkdtempSync(join(tmpdir(), "query-"));
  writeFileSync(join(dir, "data"), "request me");
  const imprint = sha256("request me");
  for (const options of [["-cert"], ["-no_nonce"], ["-cert", "-tspolicy", "1.2.3.4"]]) {
    execFileSync("openssl", ["ts", "-query", "-data", "data", "-sha256", ...options, "-out", "request.tsq"], { cwd: dir, stdio: "pipe" });
    const der = new Uint8Array(readFileSync(join(dir, "request.tsq")));
    const text = execFileSync("openssl", ["ts", "-query", "-in", "request.tsq", "-text"], { cwd: dir, stdio: "pipe" }).toString();
    const read = timeStampRequestFields(der);
    // The MessageImprint (SHA-256 with NULL parameters, then the hash) as the request encodes it, copied into the TSTInfo.
    assert.equal(Buffer.from(read.messageImprint).toString("hex"), `3031300d060960864801650304020105000420${imprint}`);
    const nonce = /Nonce: (0x[0-9A-F]+|unspecified)/.exec(text)![1]!;
    assert.equal(
      read.nonce === null
        ? "unspecified"
        : `0x${Buffer.from(read.nonce)
            .toString("hex")
            .toUpperCase()
            .replace(/^(00)+(?=.)/, "")}`,
      nonce,
    );
    assert.equal(read.certReq, options.includes("-cert"));
    assert.throws(() => timeStampRequestFields(new Uint8Array([...der, 0])));
  }
});

test("a token whose TSTInfo changed after signing is refused, also once its authority's chain is known", async () => {
  const authority = simulatedAuthority(pkiDir, "tsa-test", "Simulated");
  await obtainTimestamp(authority, bytes("known"));
  const moved = {
    ...authority,
    async respond(request: Uint8Array, signal?: AbortSignal) {
      const response = (await authority.respond(request, signal)).slice();
      // The genTime's last digit (GeneralizedTime: tag 0x18, length, "2…", "Z"), inside the signed TSTInfo.
      const tag = response.findIndex((byte, i) => byte === 0x18 && response[i + 2] === 0x32 && response[i + 1 + response[i + 1]!] === 0x5a);
      const lastDigit = tag + response[tag + 1]!;
      response[lastDigit] = response[lastDigit] === 0x30 ? 0x31 : 0x30;
      return response;
    },
  };
  await assert.rejects(obtainTimestamp(moved, bytes("x")), /signature invalid/);
});

test("a validly signed token with a SHA-1 imprint is refused, also once its authority's chain is known", async () => {
  const authority = simulatedAuthority(pkiDir, "tsa-test", "Simulated");
  const dir = mkdtempSync(join(tmpdir(), "sha1-"));
  writeFileSync(join(dir, "data"), "old hash");
  const data = bytes("old hash");
  const stamp = async (hash: string) =>
    authority.respond(new Uint8Array(execFileSync("openssl", ["ts", "-query", "-data", "data", hash, "-cert"], { cwd: dir })));
  const reuse = new TimestampCheckReuse();
  assert.equal((await checkTimestamp(await stamp("-sha256"), data, authority.chainPem, { reuse })).chainTrusted, true);
  const sha1 = await stamp("-sha1");
  const fresh = await checkTimestamp(sha1, data, authority.chainPem);
  assert.deepEqual(
    [fresh.granted, fresh.signatureValid, fresh.chainTrusted, fresh.signerCertifiedForTimestamping, fresh.signerCertificateBound, fresh.imprintMatches],
    [true, true, true, true, true, false],
  );
  assert.deepEqual(await checkTimestamp(sha1, data, authority.chainPem, { reuse }), fresh);
});
