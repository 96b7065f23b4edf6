import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** One certificate to make with openssl in a folder where its files are named after it. */
export interface CertificateToIssue {
  /** Its files: `<name>.key` (a P-256 key, made when missing, kept otherwise), `<name>.csr`, `<name>.pem`. */
  name: string;
  subject: string;
  /** The issuing CA, `<issuer>.pem` and `<issuer>.key` in the folder; null for a self-signed root. */
  issuer: string | null;
  days: number;
  /** An openssl configuration in the folder with a `[req]` section, and the section of extensions the certificate gets. */
  config: string;
  extensions: string;
  /** The file holding that section, when it is not `config` (extensions made for this one certificate). */
  extensionFile?: string;
}

/**
 * Issues a certificate with openssl, as the local PKI, the packages made with openssl alone and the revocation
 * tests all need: a self-signed root (`req -x509`) or a certificate signed by an issuer in the same folder
 * (`req` then `x509 -req`), SHA-256, a serial file per issuer (`-CAcreateserial`).
 */
export function issueCertificate(dir: string, certificate: CertificateToIssue): void {
  const { name, subject, issuer, days, config, extensions } = certificate;
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  if (!existsSync(join(dir, `${name}.key`))) openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`);
  const validity = ["-days", String(days), "-sha256"];
  if (issuer === null) {
    openssl("req", "-new", "-x509", "-key", `${name}.key`, "-subj", subject, ...validity, "-config", config, "-extensions", extensions, "-out", `${name}.pem`);
    return;
  }
  openssl("req", "-new", "-key", `${name}.key`, "-subj", subject, "-config", config, "-out", `${name}.csr`);
  openssl(
    ...["x509", "-req", "-in", `${name}.csr`, "-CA", `${issuer}.pem`, "-CAkey", `${issuer}.key`, "-CAcreateserial", ...validity],
    ...["-extfile", certificate.extensionFile ?? config, "-extensions", extensions, "-out", `${name}.pem`],
  );
}
