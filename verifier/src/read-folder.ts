import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * The files of an unzipped package, by their names in the ZIP (`files/…`, `revocation/…`): VERIFY.md's
 * steps run in that folder, and so can proof-verify. Files a verifier added there (VERIFY.md's own
 * outputs) are read too and ignored by the checks, which look only at the package's names.
 */
export function readFolder(dir: string): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    entries.set(relative(dir, path).split(sep).join("/"), new Uint8Array(readFileSync(path)));
  }
  return entries;
}
