import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The README stays a front door (issue 29): short enough to read in one sitting, with the two quickstart
 * commands, and every command, route, flag and path it names still true of the code. Reads files only;
 * no stack is started.
 */
const root = resolve(import.meta.dirname, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };

/** Every `path: "/…"` a route file declares, e.g. `/v1/public/proofs/{id}/package`. */
function declaredRoutePaths(): Set<string> {
  const paths = new Set<string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) for (const match of readFileSync(path, "utf8").matchAll(/path: "(\/[^"]*)"/g)) paths.add(match[1]!);
    }
  };
  walk(join(root, "src/routes"));
  return paths;
}

describe("README.md as a front door", () => {
  it("has at most 160 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(160);
  });

  it("gives the two quickstart commands, which package.json runs", () => {
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toContain("npm install && npm test");
    expect(packageJson.scripts.dev).toBe("node scripts/dev.ts");
    expect(packageJson.scripts.test).toBeDefined();
  });

  it("names only npm scripts that exist", () => {
    const named = [...readme.matchAll(/npm run ([a-z](?:[a-z:-]*[a-z])?)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const script of named) expect(packageJson.scripts, `npm run ${script}`).toHaveProperty(script);
  });

  it("calls only routes the Worker declares", () => {
    const declared = declaredRoutePaths();
    const called = [...readme.matchAll(/localhost:8787(\/v1\/[^\s"'`)]*)/g)].map((match) => match[1]!.replace(/\/(prf|cps|med)_…/g, "/{id}"));
    expect(called).toContain("/v1/capture-sessions");
    expect(called).toContain("/v1/webhook-endpoints");
    for (const path of called) expect([...declared], path).toContain(path);
  });

  it("passes proof-verify only the options it accepts", () => {
    const line = readme.split("\n").find((text) => text.startsWith("npx proof-verify "));
    expect(line).toBeDefined();
    const accepted = readFileSync(join(root, "verifier/bin/proof-verify.ts"), "utf8");
    for (const [option] of line!.slice(line!.indexOf("proof-verify -- ")).matchAll(/--[a-z0-9-]+/g)) expect(accepted, option).toContain(`"${option.slice(2)}"`);
  });

  it("sets only environment variables npm run dev reads", () => {
    const dev = readFileSync(join(root, "scripts/dev.ts"), "utf8");
    const set = [...readme.matchAll(/\b([A-Z][A-Z0-9_]+)=\S+ npm run dev/g)].map((match) => match[1]!);
    expect(set).toContain("WEBHOOK_RESOLVE");
    for (const name of [...set, "PORT"]) expect(dev, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("points only at files and folders that exist", () => {
    // Outside the repository (the shared specification), made by `npm run dev` (.local/), or a file of a proof's
    // package (introduced as "the package's `VERIFY.md`"): not in a clone.
    const elsewhere = (name: string, before: string) => name.startsWith("../") || name.startsWith(".local") || before.endsWith("package's ");
    const named = [...readme.matchAll(/`([\w.-]+(?:\/[\w.-]+)*\/?)`/g)]
      .filter((match) => !elsewhere(match[1]!, readme.slice(0, match.index)))
      .map((match) => match[1]!)
      .filter((name) => name.includes("/") || name.endsWith(".md"));
    expect(named).toContain("docs/operations.md");
    for (const name of named) expect(existsSync(join(root, name)), name).toBe(true);
  });
});
