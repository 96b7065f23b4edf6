import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * The files of an unzipped package, by their names in the ZIP (`files/…`, `revocation/…`): VERIFY.md's
 * steps run in that folder, and so can proof-verify. Files a verifier added there (VERIFY.md's own
 * outputs) are read too and ignored by the checks, which look only at the package's names.
 */
export function readFolder(dir: string): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    // A symbolic link is read as what it points to, as a file manager shows it; one to a folder or to nothing is an
    // entry of its own, empty: a link under files/ is never skipped (files_listed counts it).
    const link = entry.isSymbolicLink();
    if (!entry.isFile() && !link) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = !link || statSync(path, { throwIfNoEntry: false })?.isFile() ? readFileSync(path) : new Uint8Array();
    entries.set(relative(dir, path).split(sep).join("/"), new Uint8Array(bytes));
  }
  return entries;
}
