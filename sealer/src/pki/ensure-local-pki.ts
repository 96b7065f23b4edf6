/**
 * Local key material for development and tests, created once with openssl into a git-ignored folder:
 * a C2PA root and claim-signing certificate for live proofs, a second C2PA root and signer for test
 * proofs (its subject says it is a test with no legal value, and it chains to its own root, so a test
 * file never validates under the live anchor), the test-mode timestamp authority (simulated, "no legal
 * value") and a second authority standing in for a real one in local live mode. Production takes the
 * C2PA key from a secret, a real authority's URL from configuration, and their public chains from
 * files of the image (sealer/certs/README.md).
 * Usage: node sealer/src/pki/ensure-local-pki.ts <dir>
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

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

[tsa_signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`;

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
  // A folder made before a certificate was added gets the missing one without losing the others.
  if (existsSync(join(dir, `${name}.pem`))) return;
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`], dir);
  openssl(["pkcs8", "-topk8", "-nocrypt", "-in", `${name}.key`, "-out", `${name}.pk8`], dir);
  if (issuer === null) {
    openssl(["req", "-new", "-x509", "-key", `${name}.key`, "-subj", subject, "-days", String(days), "-sha256", "-config", "extensions.cnf", "-extensions", extension, "-out", `${name}.pem`], dir);
    return;
  }
  openssl(["req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`, "-config", "extensions.cnf"], dir);
  openssl(
    ["x509", "-req", "-in", `${name}.csr`, "-CA", `${issuer}.pem`, "-CAkey", `${issuer}.key`, "-CAcreateserial", "-days", String(days), "-sha256", "-extfile", "extensions.cnf", "-extensions", extension, "-out", `${name}.pem`],
    dir,
  );
}

/** The policy each simulated authority's tokens name (openssl's configuration and the in-process one alike). */
export const TSA_POLICIES = { "tsa-test": "1.3.6.1.4.1.99999.1.1", "tsa-live": "1.3.6.1.4.1.99999.1.2" } as const;

/** Named after what the folder holds: a folder made before the test C2PA identity existed is completed. */
const READY = "ready-with-test-c2pa";

/** Subjects that say, to anyone reading the certificate in a C2PA reader, that it signs only tests. */
export const TEST_C2PA_ROOT_SUBJECT = "/C=FR/O=Proof Sealing Test (no legal value)/CN=Test C2PA Root - TEST ONLY - NO LEGAL VALUE";
export const TEST_C2PA_SIGNER_SUBJECT = "/C=FR/O=Proof Sealing Test (no legal value)/CN=Test C2PA Signer - TEST ONLY - NO LEGAL VALUE";

export function ensureLocalPki(target: string): string {
  const dir = resolve(target);
  if (existsSync(join(dir, READY))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extensions.cnf"), `[req]\ndistinguished_name = dn\n[dn]\n${EXTENSIONS}`);
  issue(dir, "c2pa-root", "/C=FR/O=Proof Sealing Local/CN=Local C2PA Root", null, "root", 365 * 30);
  issue(dir, "c2pa-signer", "/C=FR/O=Proof Sealing Local/CN=Local C2PA Claim Signer", "c2pa-root", "c2pa_signer", 365 * 10);
  issue(dir, "c2pa-test-root", TEST_C2PA_ROOT_SUBJECT, null, "root", 365 * 30);
  issue(dir, "c2pa-test-signer", TEST_C2PA_SIGNER_SUBJECT, "c2pa-test-root", "c2pa_signer", 365 * 10);
  issue(dir, "tsa-test-root", "/C=FR/O=Proof Sealing Test/CN=Simulated TSA Root (no legal value)", null, "root", 365 * 30);
  issue(dir, "tsa-test", "/C=FR/O=Proof Sealing Test/CN=Simulated TSA (no legal value)", "tsa-test-root", "tsa_signer", 365 * 10);
  issue(dir, "tsa-live-root", "/C=FR/O=Local Authority/CN=Local Timestamp Root", null, "root", 365 * 30);
  issue(dir, "tsa-live", "/C=FR/O=Local Authority/CN=Local Timestamp Authority", "tsa-live-root", "tsa_signer", 365 * 10);
  writeFileSync(join(dir, "tsa-test.cnf"), tsaConfig(dir, "tsa-test", TSA_POLICIES["tsa-test"]));
  writeFileSync(join(dir, "tsa-live.cnf"), tsaConfig(dir, "tsa-live", TSA_POLICIES["tsa-live"]));
  // Serials go on from where an older folder left them: a reissued serial would repeat a token's.
  if (!existsSync(join(dir, "tsa-test-serial"))) writeFileSync(join(dir, "tsa-test-serial"), "01\n");
  if (!existsSync(join(dir, "tsa-live-serial"))) writeFileSync(join(dir, "tsa-live-serial"), "01\n");
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
