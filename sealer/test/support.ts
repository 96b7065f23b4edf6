import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLocalPki } from "../src/pki/ensure-local-pki.ts";
import { loadSigningKey } from "../src/c2pa/cose.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import type { SealContext } from "../src/seal-job.ts";
import { crlSource } from "../src/revocation/crl-source.ts";
import { LOCAL_PROOF_SEALS } from "../src/pki/ensure-local-pki.ts";
import { sealIdentity, type SealIdentity } from "../src/seal/seal-identity.ts";

export const pkiDir = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "sealer-test-")), "pki"));
export const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", name)));
export const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
export const pem = (name: string) => readFileSync(join(pkiDir, name), "utf8");

/** The local PKI's C2PA identity of each mode: live proofs under c2pa-root, test proofs under c2pa-test-root. */
export const c2paFiles = (mode: "test" | "live") => (mode === "test" ? "c2pa-test" : "c2pa");

export function sealContext(mode: "test" | "live" = "test"): SealContext {
  const name = c2paFiles(mode);
  return {
    key: loadSigningKey(pem(`${name}-signer.pk8`)),
    chainDer: [new Uint8Array(new X509Certificate(pem(`${name}-signer.pem`)).raw)],
    trustAnchorPem: pem(`${name}-root.pem`),
    seal: localSeal(mode),
    authority: mode === "test" ? simulatedAuthority(pkiDir, "tsa-test", "Simulated TSA") : simulatedAuthority(pkiDir, "tsa-live", "Local Timestamp Authority"),
    crls: crlSource({ localPkiDir: pkiDir }),
  };
}

/** The local PKI's proof seal of each mode, issued by that mode's C2PA root. */
export function localSeal(mode: "test" | "live"): SealIdentity {
  const name = LOCAL_PROOF_SEALS[mode].name;
  return sealIdentity(pem(`${name}.pk8`), [new Uint8Array(new X509Certificate(pem(`${name}.pem`)).raw)]);
}
