import { execFile } from "node:child_process";
import { appendFile, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The lint rules (biome.jsonc and its GritQL plugins in lint/) and the check of the generated Env (worker-configuration.d.ts) bite.
 * The import rules of biome.jsonc bite: each case lays out one file in a scratch copy of the repository's
 * layout (never in the checkout, where other work would see it) and runs `biome lint` with the real configuration.
 */
const root = resolve(import.meta.dirname, "../..");
const biome = join(root, "node_modules/.bin/biome");
let scratch: string;

async function lint(path: string, source: string): Promise<{ failed: boolean; output: string }> {
  const file = join(scratch, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, source);
  try {
    const { stdout, stderr } = await promisify(execFile)(biome, ["lint", "--error-on-warnings", "--vcs-enabled=false", path], { cwd: scratch });
    return { failed: false, output: stdout + stderr };
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    return { failed: true, output: stdout + stderr };
  } finally {
    await rm(file);
  }
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "lint-rules-"));
  await copyFile(join(root, "biome.jsonc"), join(scratch, "biome.jsonc"));
  await mkdir(join(scratch, "lint"));
  for (const plugin of ["objects-outside-storage.grit", "raw-statements.grit"]) await copyFile(join(root, "lint", plugin), join(scratch, "lint", plugin));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe("lint rules", () => {
  it("refuses drizzle in a route file", async () => {
    const result = await lint("src/routes/things/get.ts", `import { eq } from "drizzle-orm";\nexport const byId = eq;\n`);
    expect(result.failed).toBe(true);
    expect(result.output).toContain("noRestrictedImports");
  });

  it("refuses the database schema in a domain file", async () => {
    const result = await lint("src/things/create-thing.ts", `import { proofs } from "../db/schema/index.ts";\nexport const table = proofs;\n`);
    expect(result.failed).toBe(true);
    expect(result.output).toContain("src/storage/");
  });

  it("lets src/storage/ and src/db/ use drizzle and the schema", async () => {
    const storage = await lint(
      "src/storage/things.ts",
      `import { eq } from "drizzle-orm";\nimport { proofs } from "../db/schema/index.ts";\nexport const both = [eq, proofs];\n`,
    );
    expect(storage).toMatchObject({ failed: false });
    const db = await lint("src/db/client.ts", `import { drizzle } from "drizzle-orm/d1";\nexport const client = drizzle;\n`);
    expect(db).toMatchObject({ failed: false });
  });

  it("refuses R2 outside src/storage/objects/: the FILES binding, read or destructured, and an R2Bucket handed around", async () => {
    for (const [path, source] of [
      ["src/routes/things/get.ts", `export const read = (env: { FILES: { get(key: string): unknown } }) => env.FILES.get("key");\n`],
      ["src/things/thing.ts", `export function bucketOf(env: Env) {\n  const { FILES } = env;\n  return FILES;\n}\n`],
      ["src/storage/things.ts", `export const read = (bucket: R2Bucket) => bucket.get("key");\n`],
      ["shared/thing.ts", `export const read = (c: { env: Env }) => c.env.FILES;\n`],
    ]) {
      const result = await lint(path!, source!);
      expect(result.failed, path).toBe(true);
      expect(result.output, path).toContain("src/storage/objects/");
    }
  });

  it("lets src/storage/objects/ reach the bucket", async () => {
    const result = await lint("src/storage/objects/things.ts", `export const read = (store: { FILES: R2Bucket }) => store.FILES.get("key");\n`);
    expect(result).toMatchObject({ failed: false });
  });

  it("refuses a raw D1 statement outside src/storage/statement.ts, where a `?` would bind by position", async () => {
    for (const path of ["src/storage/things.ts", "src/routes/health/checks.ts"]) {
      const result = await lint(path, `export const byId = (d1: D1Database, id: string) => d1.prepare("SELECT * FROM things WHERE id = ?").bind(id);\n`);
      expect(result.failed, path).toBe(true);
      expect(result.output, path).toContain("src/storage/statement.ts");
    }
    const helper = await lint("src/storage/statement.ts", `export const run = (d1: D1Database, text: string) => d1.prepare(text);\n`);
    expect(helper).toMatchObject({ failed: false });
  });

  it("refuses a sealer file importing the Worker's src/", async () => {
    for (const [path, specifier] of [
      ["sealer/src/reach.ts", "../../src/lib/canonical-json.ts"],
      ["sealer/src/tsa/reach.ts", "../../../src/verification/timestamp-check.ts"],
      ["sealer/test/reach.test.ts", "../../src/sealing/sealer-protocol.ts"],
    ]) {
      const result = await lint(path!, `import { x } from "${specifier}";\nexport const y = x;\n`);
      expect(result.failed, path).toBe(true);
      expect(result.output, path).toContain("shared/");
    }
  });

  it("lets the sealer import its own modules and the shared package", async () => {
    const own = await lint("sealer/test/own.test.ts", `import { x } from "../src/config.ts";\nexport const y = x;\n`);
    expect(own).toMatchObject({ failed: false });
    const shared = await lint("sealer/src/tsa/uses-shared.ts", `import { x } from "../../../shared/timestamp-check.ts";\nexport const y = x;\n`);
    expect(shared).toMatchObject({ failed: false });
  });
});

describe("the generated Env check (npm run types -- --check)", () => {
  it("passes on the committed file and fails once wrangler.toml declares something it does not", async () => {
    const project = await mkdtemp(join(tmpdir(), "env-types-"));
    try {
      for (const file of ["wrangler.toml", "worker-configuration.d.ts", "package.json"]) await copyFile(join(root, file), join(project, file));
      for (const link of ["src", "node_modules", "public", "sealer"]) await symlink(join(root, link), join(project, link));
      const check = () =>
        promisify(execFile)("npm", ["run", "--silent", "types", "--", "--check"], { cwd: project }).then(
          () => "up to date",
          (error: { stdout: string; stderr: string }) => error.stdout + error.stderr,
        );
      expect(await check()).toBe("up to date");
      await appendFile(join(project, "wrangler.toml"), '\n[[kv_namespaces]]\nbinding = "NEW_CACHE"\nid = "0"\n');
      expect(await check()).toContain("out of date");
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
