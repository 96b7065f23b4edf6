import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Something kept in memory between requests is a `boundedCache` (shared/bounded-cache.ts) with its bound and
 * lifetime stated at the call (CONTRIBUTING, "Where a change goes"): a module-level Map, Set, WeakMap or array
 * that callers' requests can grow is refused. A constant set of literals is not state. The module-level maps
 * that are not caches are named here with why they cannot grow with what callers send.
 */
const NOT_CACHES: Record<string, string> = {
  "src/openapi/translations.ts": "the OpenAPI texts' French, filled by the code's own t(en, fr) calls as modules load, never by a request",
  "sealer/src/c2pa/signing-thread.ts": "the timestamp requests in flight on the signing thread, each deleted when it is answered",
};

const root = resolve(import.meta.dirname, "../..");
const folders = ["src", "shared", "sealer/src", "verifier/src"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

const files = folders.flatMap((folder) => sourceFiles(join(root, folder))).map((file) => ({ path: relative(root, file), text: readFileSync(file, "utf8") }));

/** Module-level collections a request could grow: `new Map(`, `new Set(` not of a literal list, `new WeakMap(`, `let x = []`. */
const growable = /^(?:export )?(?:const|let) \w+(?:: [^=]+)? = (?:new (?:Map|WeakMap)\b|new Set\b(?!(?:<[^>]*>)?\(\[)|\[\])/gm;

describe("module-level caches", () => {
  it("reads the files it judges: the bounded caches are found (the rule would pass vacuously otherwise)", () => {
    const calls = files.filter((file) => /^const \w+ = boundedCache</m.test(file.text)).map((file) => file.path);
    expect(calls).toEqual(expect.arrayContaining(["src/auth/caller-cache.ts", "src/webhooks/destination-check.ts", "src/db/client.ts"]));
  });

  it("are bounded caches: no other module-level Map, Set, WeakMap or array but those that are not caches", () => {
    const found = files.flatMap((file) => [...file.text.matchAll(growable)].map((match) => `${file.path}: ${match[0]}`));
    const unexplained = found.filter((line) => !(line.split(":")[0]! in NOT_CACHES));
    expect(unexplained).toEqual([]);
    expect(found.map((line) => line.split(":")[0]).sort()).toEqual(Object.keys(NOT_CACHES).sort());
  });

  it("would refuse a hand-written cache", () => {
    expect("const seen = new Map<string, string>();".match(growable)).not.toBeNull();
    expect("let remembered = [];".match(growable)).not.toBeNull();
    expect('const ALLOWED = new Set(["a", "b"]);'.match(growable)).toBeNull();
  });
});
