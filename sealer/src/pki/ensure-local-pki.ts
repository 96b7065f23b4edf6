/**
 * Local key material for development and tests, created once with openssl into a git-ignored folder:
 * a C2PA root and claim-signing certificate for live proofs, a second C2PA root and signer for test
 * proofs (its subject says it is a test with no legal value, and it chains to its own root, so a test
 * file never validates under the live anchor), the test-mode timestamp authority (simulated, "no legal
 * value") and a second authority standing in for a real one in local live mode. Each C2PA root also
 * issues the proof seal's certificate of its mode (manifest.p7s, docs/adr/0027): a key of its own, for
 * document signing and emailProtection (docs/adr/0054: PDF readers trust no seal without it), so the service root anchors both the files' C2PA signatures and the seal over the
 * whole proof. Production takes the C2PA and seal keys from secrets, a real authority's URL from
 * configuration, and their public chains from files of the image (sealer/certs/README.md).
 *
 * Each root is the issuing CA of its signer and publishes a CRL, as a real CA does: the signer's certificate
 * carries a CRL distribution point, `http://localhost/pki/<root>.crl` (LOCAL_CRL_BASE), which the sealer
 * resolves to this folder's `<root>.crl` instead of the network (sealer/src/revocation/crl-source.ts), so
 * revocation data is captured at sealing in development and tests exactly as for a real authority. The
 * roots keep an `openssl ca` database (`<root>-index.txt`) so that a certificate can be revoked locally
 * (in the folder: `openssl ca -config <root>-ca.cnf -revoke <cert>.pem`; `localCrl` then issues the next CRL).
 * Usage: node sealer/src/pki/ensure-local-pki.ts <dir>
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { X509Certificate } from "node:crypto";
import { issueCertificate } from "./issue-certificate.ts";

const openssl = (args: string[], cwd: string) => execFileSync("openssl", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });

const EXTENSIONS = `
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[c2pa_signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = emailProtection, 1.3.6.1.4.1.62558.2.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[proof_seal]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = 1.3.6.1.5.5.7.3.36, emailProtection
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[tsa_signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`;

/** Where the local roots publish their CRLs; never fetched over the network (`localhost`, no port). */
export const LOCAL_CRL_BASE = "http://localhost/pki/";
export const localCrlUrl = (issuer: string) => `${LOCAL_CRL_BASE}${issuer}.crl`;

/** How long a local CRL is current, like a real CA's weekly CRL; `localCrl` issues the next one when it lapses. */
const CRL_DAYS = 7;

/** The minimal `openssl ca` configuration a root needs to revoke certificates and issue CRLs (run in the folder). */
function caConfig(root: string): string {
  return `[ca]
default_ca = ${root}

[${root}]
database = ${root}-index.txt
crlnumber = ${root}-crlnumber
certificate = ${root}.pem
private_key = ${root}.key
default_md = sha256
default_crl_days = ${CRL_DAYS}
unique_subject = no
`;
}

function tsaConfig(dir: string, name: string, policy: string): string {
  return `
[tsa]
default_tsa = ${name}

[${name}]
dir = ${dir}
serial = $dir/${name}-serial
crypto_device = builtin
signer_cert = $dir/${name}.pem
certs = $dir/${name}.pem
signer_key = $dir/${name}.key
signer_digest = sha256
default_policy = ${policy}
other_policies = ${policy}
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}

function issue(dir: string, name: string, subject: string, issuer: string | null, extension: string, days: number) {
  // A folder made before a certificate was added gets the missing one without losing the others; a signer
  // made before CRLs were published is issued again from its own key, with the distribution point.
  // A certificate made before its section gained an extended key usage (the proof seal's emailProtection,
  // docs/adr/0054) is issued again too.
  if (existsSync(join(dir, `${name}.pem`)) && (issuer === null || publishesCrl(dir, name, issuer)) && hasExtendedKeyUsages(dir, name, extension)) return;
  const certificate = { name, subject, issuer, days, config: "extensions.cnf", extensions: extension };
  if (issuer === null) issueCertificate(dir, certificate);
  else {
    writeFileSync(join(dir, `${name}.ext`), `[${extension}]\n${sectionOf(extension)}crlDistributionPoints = URI:${localCrlUrl(issuer)}\n`);
    issueCertificate(dir, { ...certificate, extensionFile: `${name}.ext` });
    // The root's CA database knows its signer, so `openssl ca -revoke` can list it on the next CRL.
    openssl(["ca", "-config", `${issuer}-ca.cnf`, "-valid", `${name}.pem`], dir);
  }
  if (!existsSync(join(dir, `${name}.pk8`))) openssl(["pkcs8", "-topk8", "-nocrypt", "-in", `${name}.key`, "-out", `${name}.pk8`], dir);
}

/** The lines of one section of EXTENSIONS, without its header. */
function sectionOf(extension: string): string {
  const body = EXTENSIONS.split(`[${extension}]\n`)[1]!;
  return body.slice(0, body.search(/\n\[|$/) + 1);
}

/** The purposes openssl names in EXTENSIONS, by OID (X509Certificate lists a certificate's by OID). */
const PURPOSE_OIDS: Record<string, string> = { emailProtection: "1.3.6.1.5.5.7.3.4", timeStamping: "1.3.6.1.5.5.7.3.8" };

/** Whether the certificate lists every extended key usage its section of EXTENSIONS names. */
function hasExtendedKeyUsages(dir: string, name: string, extension: string): boolean {
  const line = sectionOf(extension).match(/^extendedKeyUsage = (.+)$/m);
  if (!line) return true;
  const wanted = line[1]!.split(/,\s*/).filter((purpose) => purpose !== "critical");
  const listed = new X509Certificate(readFileSync(join(dir, `${name}.pem`))).keyUsage ?? [];
  return wanted.every((purpose) => listed.includes(PURPOSE_OIDS[purpose] ?? purpose));
}

function publishesCrl(dir: string, name: string, issuer: string): boolean {
  return openssl(["x509", "-in", `${name}.pem`, "-noout", "-ext", "crlDistributionPoints"], dir)
    .toString()
    .includes(localCrlUrl(issuer));
}

/** A root ready to issue CRLs: its `openssl ca` configuration, database and CRL number. */
function prepareCa(dir: string, root: string) {
  writeFileSync(join(dir, `${root}-ca.cnf`), caConfig(root));
  if (!existsSync(join(dir, `${root}-index.txt`))) writeFileSync(join(dir, `${root}-index.txt`), "");
  if (!existsSync(join(dir, `${root}-crlnumber`))) writeFileSync(join(dir, `${root}-crlnumber`), "01\n");
}

/** The local roots, each the issuing CA of one signer. */
export const LOCAL_CAS = ["c2pa-root", "c2pa-test-root", "tsa-test-root", "tsa-live-root"] as const;

/**
 * The current CRL of a local root (DER, as a CRL distribution point serves it): the one in the folder while
 * it is current and the root's database has not changed since, else a new one issued by `openssl ca
 * -gencrl` (lastUpdate now, nextUpdate in CRL_DAYS) listing whatever the database says is revoked.
 */
export function localCrl(dir: string, root: string, now: Date = new Date()): Uint8Array {
  const file = join(dir, `${root}.crl`);
  if (existsSync(file) && statSync(file).mtimeMs >= statSync(join(dir, `${root}-index.txt`)).mtimeMs) {
    const nextUpdate = openssl(["crl", "-inform", "DER", "-in", file, "-noout", "-nextupdate"], dir)
      .toString()
      .trim()
      .replace(/^nextUpdate=/, "");
    if (Date.parse(nextUpdate) > now.getTime()) return new Uint8Array(readFileSync(file));
  }
  openssl(["ca", "-config", `${root}-ca.cnf`, "-gencrl", "-out", `${root}.crl.pem`], dir);
  openssl(["crl", "-in", `${root}.crl.pem`, "-outform", "DER", "-out", `${root}.crl`], dir);
  return new Uint8Array(readFileSync(file));
}

/** The policy each simulated authority's tokens name (openssl's configuration and the in-process one alike). */
export const TSA_POLICIES = { "tsa-test": "1.3.6.1.4.1.99999.1.1", "tsa-live": "1.3.6.1.4.1.99999.1.2" } as const;

/**
 * Named after what the folder holds: a folder made before its CRLs were published, or before the proof
 * seal's certificates existed, is completed (what it has is kept, what is missing is made).
 */
const READY = "ready-with-proof-seals-for-pdf-readers";

/** Subjects that say, to anyone reading the certificate in a C2PA reader, that it signs only tests. */
export const TEST_C2PA_ROOT_SUBJECT = "/C=FR/O=Proof Sealing Test (no legal value)/CN=Test C2PA Root - TEST ONLY - NO LEGAL VALUE";
export const TEST_C2PA_SIGNER_SUBJECT = "/C=FR/O=Proof Sealing Test (no legal value)/CN=Test C2PA Signer - TEST ONLY - NO LEGAL VALUE";
export const TEST_PROOF_SEAL_SUBJECT = "/C=FR/O=Proof Sealing Test (no legal value)/CN=Test Proof Seal - TEST ONLY - NO LEGAL VALUE";

/** The files of each mode's proof seal identity in the folder (`<name>.pk8`, `<name>.pem`) and the root that issued it. */
export const LOCAL_PROOF_SEALS = {
  live: { name: "proof-seal", root: "c2pa-root" },
  test: { name: "proof-seal-test", root: "c2pa-test-root" },
} as const;

export function ensureLocalPki(target: string): string {
  const dir = resolve(target);
  if (existsSync(join(dir, READY))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extensions.cnf"), `[req]\ndistinguished_name = dn\n[dn]\n${EXTENSIONS}`);
  for (const root of LOCAL_CAS) prepareCa(dir, root);
  issue(dir, "c2pa-root", "/C=FR/O=Proof Sealing Local/CN=Local C2PA Root", null, "root", 365 * 30);
  issue(dir, "c2pa-signer", "/C=FR/O=Proof Sealing Local/CN=Local C2PA Claim Signer", "c2pa-root", "c2pa_signer", 365 * 10);
  issue(dir, "c2pa-test-root", TEST_C2PA_ROOT_SUBJECT, null, "root", 365 * 30);
  issue(dir, "c2pa-test-signer", TEST_C2PA_SIGNER_SUBJECT, "c2pa-test-root", "c2pa_signer", 365 * 10);
  issue(dir, LOCAL_PROOF_SEALS.live.name, "/C=FR/O=Proof Sealing Local/CN=Local Proof Seal", LOCAL_PROOF_SEALS.live.root, "proof_seal", 365 * 10);
  issue(dir, LOCAL_PROOF_SEALS.test.name, TEST_PROOF_SEAL_SUBJECT, LOCAL_PROOF_SEALS.test.root, "proof_seal", 365 * 10);
  issue(dir, "tsa-test-root", "/C=FR/O=Proof Sealing Test/CN=Simulated TSA Root (no legal value)", null, "root", 365 * 30);
  issue(dir, "tsa-test", "/C=FR/O=Proof Sealing Test/CN=Simulated TSA (no legal value)", "tsa-test-root", "tsa_signer", 365 * 10);
  issue(dir, "tsa-live-root", "/C=FR/O=Local Authority/CN=Local Timestamp Root", null, "root", 365 * 30);
  issue(dir, "tsa-live", "/C=FR/O=Local Authority/CN=Local Timestamp Authority", "tsa-live-root", "tsa_signer", 365 * 10);
  writeFileSync(join(dir, "tsa-test.cnf"), tsaConfig(dir, "tsa-test", TSA_POLICIES["tsa-test"]));
  writeFileSync(join(dir, "tsa-live.cnf"), tsaConfig(dir, "tsa-live", TSA_POLICIES["tsa-live"]));
  // Serials go on from where an older folder left them: a reissued serial would repeat a token's.
  if (!existsSync(join(dir, "tsa-test-serial"))) writeFileSync(join(dir, "tsa-test-serial"), "01\n");
  if (!existsSync(join(dir, "tsa-live-serial"))) writeFileSync(join(dir, "tsa-live-serial"), "01\n");
  for (const root of LOCAL_CAS) localCrl(dir, root);
  writeFileSync(join(dir, READY), new Date().toISOString());
  return dir;
}

if (import.meta.main) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: node sealer/src/pki/ensure-local-pki.ts <dir>");
    process.exit(2);
  }
  console.log(`Local key material in ${ensureLocalPki(dir)}`);
}
