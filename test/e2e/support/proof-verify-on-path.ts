import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

/**
 * A PATH on which `proof-verify` is the repository's offline verifier, as `npm link` in verifier/ would
 * install it, so VERIFY.md's step 8 runs exactly as printed.
 */
export function pathWithProofVerify(): string {
  const dir = mkdtempSync(join(tmpdir(), "proof-verify-bin-"));
  const bin = resolve(import.meta.dirname, "../../../verifier/bin/proof-verify.ts");
  writeFileSync(join(dir, "proof-verify"), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
  chmodSync(join(dir, "proof-verify"), 0o755);
  return `${dir}${delimiter}${process.env.PATH ?? ""}`;
}
