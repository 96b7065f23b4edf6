import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Layering rules of the Worker's src/ that Biome's import restrictions cannot say without repeating the
 * storage fence in every override (a later override replaces an earlier one's options): read from the files.
 */
const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** Each relative import or re-export of a file, as a path under src/ (`webhooks/attempt.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms)].map((match) => relative(src, resolve(dirname(file), match[1]!)));
}

const under = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
const files = sourceFiles(src).map((file) => ({ path: relative(src, file), imports: importsOf(file) }));

describe("import layering of src/", () => {
  it("reads the imports it judges (the rules would pass vacuously otherwise)", () => {
    const publishing = files.find((file) => file.path === "webhooks/publish-events.ts");
    expect(publishing?.imports).toContain("webhooks/attempt.ts");
    expect(files.find((file) => file.path === "app.ts")?.imports).toContain("middleware/https-only.ts");
  });

  it("src/events/ (the catalogue) imports nothing from src/webhooks/, which delivers it: no cycle", () => {
    const offending = files
      .filter((file) => under(file.path, "events"))
      .flatMap((file) => file.imports.filter((target) => under(target, "webhooks")).map((target) => `${file.path} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it("the Worker calls the one verification core (shared/verification/) from src/verification/verify-proof.ts only", () => {
    // The core's manifest parser, the one parser of manifest.json, also serves the storage that binds a sealed record
    // to the sealed manifest (docs/adr/0065) and the re-hash's expected hashes (docs/adr/0066): it reads, it does not verify.
    const parser = "../shared/verification/sealed-manifest.ts";
    const callers = files
      .filter((file) => file.imports.some((target) => under(target, "../shared/verification") && target !== parser))
      .map((file) => file.path);
    expect(callers).toEqual(["verification/verify-proof.ts"]);
    const readers = files.filter((file) => file.imports.includes(parser)).map((file) => file.path);
    expect(readers.filter((path) => path !== "verification/verify-proof.ts").sort()).toEqual([
      // The re-hash's expected hashes of signed files, from the sealed manifest (docs/adr/0066).
      "storage/objects/artifact-hashes.ts",
      "storage/objects/sealed-records.ts",
    ]);
  });

  it("verification is presented from src/verification/ only: routes call it, src/proofs/ imports nothing from it", () => {
    const presenters = files.filter((file) => file.imports.includes("verification/verify-proof.ts")).map((file) => file.path);
    expect(presenters).toContain("verification/public-proof.ts");
    expect(presenters.filter((path) => !under(path, "verification") && !under(path, "routes"))).toEqual([]);
    const fromProofs = files
      .filter((file) => under(file.path, "proofs"))
      .flatMap((file) => file.imports.filter((target) => under(target, "verification")).map((target) => `${file.path} -> ${target}`));
    expect(fromProofs).toEqual([]);
  });

  it("only the HTTP layer (app, route helpers, routes, middleware) imports src/middleware/", () => {
    const httpLayer = (path: string) => path === "app.ts" || ["middleware", "openapi", "routes"].some((folder) => under(path, folder));
    const offending = files
      .filter((file) => !httpLayer(file.path))
      .flatMap((file) => file.imports.filter((target) => under(target, "middleware")).map((target) => `${file.path} -> ${target}`));
    expect(offending).toEqual([]);
  });
});
