import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson } from "../../../shared/canonical-json.ts";
import { buildHashTree, encodeEvidenceRecord, evidenceGroup } from "../../../shared/evidence-record.ts";
import type { FileEvidence } from "../../../shared/verification/verify-proof-core.ts";
import { issueCertificate } from "../../../sealer/src/pki/issue-certificate.ts";

/**
 * Proof packages made with openssl alone, independently of the sealer: a service root issuing a proof seal
 * certificate (documentSigning), a timestamp authority whose short-lived signer stamps the manifest and whose
 * long-lived one makes archive timestamps, `openssl cms -sign -cades` for manifest.p7s and `openssl ts
 * -reply` for the tokens. What the verification core is tested against (test/e2e/verify-proof-core.e2e.test.ts).
 */

const EXTENSIONS = `[req]
distinguished_name = dn
[dn]
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[seal]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = 1.3.6.1.5.5.7.3.36
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
crlDistributionPoints = URI:http://localhost/pki/service-root.crl
[email]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = emailProtection
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
crlDistributionPoints = URI:http://localhost/pki/service-root.crl
[tsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`;

const tsaConfig = (name: string) => `[tsa]
default_tsa = ${name}
[${name}]
serial = ${name}-serial
crypto_device = builtin
signer_cert = ${name}.pem
certs = ${name}.pem
signer_key = ${name}.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.9.1
digests = sha256
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

export const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const derOfPem = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ""), "base64"));

export interface Pki {
  dir: string;
  serviceRootPem: string;
  serviceRootSha256: string;
  tsaRootPem: string;
  tsaRootSha256: string;
  /** When the authority's manifest-stamping certificate expires (days after now). */
  tsaSignerNotAfter: Date;
  /** When the long-lived archive-timestamp signer's certificate expires. */
  archiveSignerNotAfter: Date;
  /** A C2PA signer's certificate (DER) the service root issued, as a genuine signed file's COSE signature carries it. */
  c2paSignerDer: Uint8Array;
}

export function makePki(options: { tsaDays?: number; archiveDays?: number } = {}): Pki {
  const dir = mkdtempSync(join(tmpdir(), "verify-core-pki-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  writeFileSync(join(dir, "extensions.cnf"), EXTENSIONS);
  const root = (name: string, subject: string) =>
    issueCertificate(dir, { name, subject, issuer: null, days: 10950, config: "extensions.cnf", extensions: "root" });
  const issue = (name: string, subject: string, issuer: string, section: string, days: number) =>
    issueCertificate(dir, { name, subject, issuer, days, config: "extensions.cnf", extensions: section });
  root("service-root", "/C=FR/O=Verify Core Test/CN=Service Root");
  issue("seal", "/C=FR/O=Verify Core Test/CN=Proof Seal", "service-root", "seal", 3650);
  issue("seal-email", "/C=FR/O=Verify Core Test/CN=Email Signer", "service-root", "email", 3650);
  issue("c2pa-signer", "/C=FR/O=Verify Core Test/CN=C2PA Signer", "service-root", "email", 3650);
  root("tsa-root", "/C=FR/O=Verify Core Test/CN=TSA Root");
  issue("tsa", "/C=FR/O=Verify Core Test/CN=TSA", "tsa-root", "tsa", options.tsaDays ?? 2);
  issue("tsa-archive", "/C=FR/O=Verify Core Test/CN=TSA Archive", "tsa-root", "tsa", options.archiveDays ?? 3650);
  for (const name of ["tsa", "tsa-archive"]) {
    writeFileSync(join(dir, `${name}.cnf`), tsaConfig(name));
    writeFileSync(join(dir, `${name}-serial`), "01\n");
  }
  const notAfter = (name: string) =>
    new Date(
      run("x509", "-in", `${name}.pem`, "-noout", "-enddate")
        .toString()
        .trim()
        .replace(/^notAfter=/, ""),
    );
  const serviceRootPem = readFileSync(join(dir, "service-root.pem"), "utf8");
  const tsaRootPem = readFileSync(join(dir, "tsa-root.pem"), "utf8");
  return {
    dir,
    serviceRootPem,
    serviceRootSha256: sha256(derOfPem(serviceRootPem)),
    tsaRootPem,
    tsaRootSha256: sha256(derOfPem(tsaRootPem)),
    tsaSignerNotAfter: notAfter("tsa"),
    archiveSignerNotAfter: notAfter("tsa-archive"),
    c2paSignerDer: derOfPem(readFileSync(join(dir, "c2pa-signer.pem"), "utf8")),
  };
}

/** manifest.p7s: `openssl cms -sign` detached over the manifest, CAdES-B (-cades) unless `cades: false`. */
export function sealWithOpenssl(pki: Pki, manifest: Uint8Array, options: { signer?: "seal" | "seal-email"; cades?: boolean } = {}): Uint8Array {
  const signer = options.signer ?? "seal";
  writeFileSync(join(pki.dir, "manifest.json"), manifest);
  execFileSync(
    "openssl",
    [
      "cms",
      "-sign",
      "-binary",
      "-in",
      "manifest.json",
      "-signer",
      `${signer}.pem`,
      "-inkey",
      `${signer}.key`,
      "-md",
      "sha256",
      ...(options.cades === false ? [] : ["-cades"]),
      "-outform",
      "DER",
      "-out",
      "manifest.p7s",
    ],
    { cwd: pki.dir, stdio: "pipe" },
  );
  return new Uint8Array(readFileSync(join(pki.dir, "manifest.p7s")));
}

/** An RFC 3161 response from `openssl ts -reply` over data (proof.tsr), or over a digest given in hex. */
export function stampWithOpenssl(pki: Pki, what: { data: Uint8Array } | { digestHex: string }, signer: "tsa" | "tsa-archive" = "tsa"): Uint8Array {
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: pki.dir, stdio: "pipe" });
  if ("data" in what) writeFileSync(join(pki.dir, "stamped"), what.data);
  run("ts", "-query", ...("data" in what ? ["-data", "stamped"] : ["-digest", what.digestHex]), "-sha256", "-cert", "-out", "request.tsq");
  run("ts", "-reply", "-config", `${signer}.cnf`, "-queryfile", "request.tsq", "-out", "response.tsr");
  return new Uint8Array(readFileSync(join(pki.dir, "response.tsr")));
}

/** One certificate whose issuer's CRL the sealer captured: `chain` as in revocation/index.json, names as in makePki. */
export interface CapturedCertificate {
  chain: "tsa" | "c2pa";
  certificate: string;
  issuer: string;
}

/**
 * revocation/ as the sealer captures it (shared/revocation-data.ts): for each certificate, the PEM and its
 * issuer's CRL (DER, `openssl ca -gencrl`, valid 30 days from now), and the index naming them. A certificate
 * in `revoked` (captured or not: the proof seal's shares the C2PA signer's CRL) is listed on its issuer's CRL
 * (keyCompromise, key invalid since `revokedSince`).
 */
export function revocationWithOpenssl(
  pki: Pki,
  certificates: CapturedCertificate[],
  revoked: { certificate: string; issuer: string; revokedSince: Date }[] = [],
): Map<string, Uint8Array> {
  const dir = mkdtempSync(join(pki.dir, "ca-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }).toString();
  const entries = new Map<string, Uint8Array>();
  const index = certificates.map(({ chain, certificate, issuer }) => {
    const config = `ca-${issuer}.cnf`;
    if (!existsSync(join(dir, config))) {
      writeFileSync(
        join(dir, config),
        `[ca]\ndefault_ca = crl_ca\n[crl_ca]\ndatabase = ${issuer}-index.txt\ncrlnumber = ${issuer}-crlnumber\ndefault_md = sha256\ndefault_crl_days = 30\n`,
      );
      writeFileSync(join(dir, `${issuer}-index.txt`), "");
      writeFileSync(join(dir, `${issuer}-crlnumber`), "01\n");
      const ca = ["-config", config, "-cert", join(pki.dir, `${issuer}.pem`), "-keyfile", join(pki.dir, `${issuer}.key`)];
      for (const one of revoked.filter((candidate) => candidate.issuer === issuer)) {
        const since = `${one.revokedSince.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
        run("ca", ...ca, "-revoke", join(pki.dir, `${one.certificate}.pem`), "-crl_compromise", since);
      }
      run("ca", ...ca, "-gencrl", "-out", `${issuer}.crl.pem`);
      run("crl", "-in", `${issuer}.crl.pem`, "-outform", "DER", "-out", `${issuer}.crl`);
    }
    const pem = readFileSync(join(pki.dir, `${certificate}.pem`), "utf8");
    const crl = new Uint8Array(readFileSync(join(dir, `${issuer}.crl`)));
    const dates = run("crl", "-inform", "DER", "-in", `${issuer}.crl`, "-noout", "-lastupdate", "-nextupdate");
    const date = (field: string) => new Date(dates.match(new RegExp(`${field}=(.+)`))![1]!).toISOString();
    const names = { certificate: `revocation/${chain}-1.pem`, crl: `revocation/${chain}-1.crl` };
    entries.set(names.certificate, new TextEncoder().encode(pem));
    entries.set(names.crl, crl);
    return {
      chain,
      position: 1,
      subject: run("x509", "-in", join(pki.dir, `${certificate}.pem`), "-noout", "-subject")
        .trim()
        .replace(/^subject=\s*/, ""),
      serial: run("x509", "-in", join(pki.dir, `${certificate}.pem`), "-noout", "-serial")
        .trim()
        .replace(/^serial=/, ""),
      status: "captured",
      source: `http://localhost/pki/${issuer}.crl`,
      captured_at: date("lastUpdate"),
      this_update: date("lastUpdate"),
      next_update: date("nextUpdate"),
      reason: null,
      ...names,
    };
  });
  entries.set("revocation/index.json", new TextEncoder().encode(JSON.stringify(index, null, 2)));
  return entries;
}

/**
 * evidence-record.ers: one archive timestamp by the long-lived signer over the hash of the package's evidence
 * objects (manifest.json, proof.tsr and the revocation/ files), no reduced hash tree.
 */
export async function evidenceRecordWithOpenssl(pki: Pki, objects: Uint8Array[]): Promise<Uint8Array> {
  const group = await evidenceGroup("SHA-256", objects);
  const { root } = await buildHashTree("SHA-256", [group]);
  const response = stampWithOpenssl(pki, { digestHex: Buffer.from(root).toString("hex") }, "tsa-archive");
  writeFileSync(join(pki.dir, "archive.tsr"), response);
  execFileSync("openssl", ["ts", "-reply", "-in", "archive.tsr", "-token_out", "-out", "archive.token"], { cwd: pki.dir, stdio: "pipe" });
  const token = new Uint8Array(readFileSync(join(pki.dir, "archive.token")));
  return encodeEvidenceRecord({ chains: [[{ digestAlgorithm: "SHA-256", reducedHashtree: null, timeStamp: token }]] });
}

export interface PackageFile {
  id: string;
  step_id: string;
  position: number;
  content_type: string;
  /** The bytes of the signed copy in the package (synthetic: the core never reads them). */
  signed: Uint8Array;
  /** SHA-256 of the original received. */
  sha256: string;
  prior_credentials: boolean;
}

export type Manifest = Record<string, unknown> & { files: Record<string, unknown>[] };

/** A version-2 manifest as the brief of issue 24 lays it out. */
export function manifestV2(proof: Record<string, unknown>, files: PackageFile[]): Manifest {
  return {
    version: 2,
    proof_id: "prf_core1",
    organization_id: "org_core",
    mode: "live",
    external_reference: "LEASE-42",
    party: "provider",
    stage: "checkin",
    category: "vehicle",
    location_reference: null,
    session_id: "cps_core1",
    template_sha256: "ab".repeat(32),
    compare_to: null,
    ...proof,
    files: files.map((file) => ({
      id: file.id,
      step_id: file.step_id,
      position: file.position,
      kind: file.content_type.startsWith("video/") ? "video" : "photo",
      content_type: file.content_type,
      size: file.signed.length,
      sha256: file.sha256,
      signed_sha256: sha256(file.signed),
      captured_at: "2026-11-26T10:00:00.000Z",
      prior_credentials: file.prior_credentials,
    })),
  };
}

export const manifestBytes = (manifest: Manifest) => new TextEncoder().encode(canonicalJson(manifest));

/**
 * What c2pa-rs reads in a genuine signed file of this manifest: Trusted, its capture assertion naming the proof,
 * signed by `signerCertificate` (the service root's C2PA signer, makePki's `c2paSignerDer`).
 */
export function genuineEvidence(manifest: Manifest, file: PackageFile, original: string | null, signerCertificate: Uint8Array): FileEvidence {
  const compareTo = manifest.compare_to as { proof_id: string } | null;
  return {
    present: true,
    sha256: sha256(file.signed),
    checked_at: "2026-11-26T12:00:00.000Z",
    c2pa: {
      state: "Trusted",
      failures: [],
      capture: {
        proof_id: manifest.proof_id,
        session_id: manifest.session_id,
        organization_id: manifest.organization_id,
        mode: manifest.mode,
        external_reference: manifest.external_reference,
        party: manifest.party,
        stage: manifest.stage,
        step_id: file.step_id,
        position: file.position,
        compare_to: compareTo?.proof_id ?? null,
        observed: { sha256: file.sha256 },
      },
      signerSerial: null,
      signerCertificate,
    },
    original_sha256: original,
  };
}
