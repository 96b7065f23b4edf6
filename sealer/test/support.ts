import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLocalPki } from "../src/pki/ensure-local-pki.ts";
import { loadSigningKey } from "../src/c2pa/cose.ts";
import { opensslAuthority } from "../src/tsa/authority.ts";
import type { SealContext } from "../src/seal-job.ts";

export const pkiDir = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "sealer-test-")), "pki"));
export const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", name)));
export const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
export const pem = (name: string) => readFileSync(join(pkiDir, name), "utf8");

export function sealContext(mode: "test" | "live" = "test"): SealContext {
  return {
    key: loadSigningKey(pem("c2pa-signer.pk8")),
    chainDer: [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)],
    trustAnchorPem: pem("c2pa-root.pem"),
    authority: mode === "test" ? opensslAuthority(pkiDir, "tsa-test", "Simulated TSA") : opensslAuthority(pkiDir, "tsa-live", "Local Timestamp Authority"),
  };
}
