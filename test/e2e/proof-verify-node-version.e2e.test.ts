import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * proof-verify's entry (verifier/bin/proof-verify.mjs) on the Node.js a verifier happens to have: an older one
 * says what is needed and exits 2 instead of crashing on the TypeScript; Node.js 24 runs the verifier.
 * No stack is started: these run the command only.
 */
const root = resolve(import.meta.dirname, "../..");
const entry = join(root, "verifier/bin/proof-verify.mjs");
const scratch = mkdtempSync(join(tmpdir(), "proof-verify-node-version-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The system's Node.js when it is older than 24 (v20 on the development machine), else none. */
function olderNode(): { path: string; version: string } | undefined {
  for (const path of ["/usr/bin/node", "/usr/local/bin/node"]) {
    const version = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout?.trim();
    if (version && Number(version.slice(1).split(".")[0]) < 24) return { path, version };
  }
  return undefined;
}
const older = olderNode();
if (older === undefined) console.warn("\n!! SKIPPED: proof-verify on an older Node.js: no Node.js < 24 at /usr/bin/node or /usr/local/bin/node.\n");

const run = (command: string, args: string[], cwd = scratch) => spawnSync(command, args, { encoding: "utf8", cwd });

describe.skipIf(older === undefined)(`proof-verify on an older Node.js (${older?.path} ${older?.version})`, () => {
  it("says it needs Node.js 24, which version this is and how to get one, on stderr, with exit code 2 and no crash", () => {
    const result = run(older!.path, [entry, "package.zip", "--json"]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`proof-verify needs Node.js 24 or later (this is ${older!.version})`);
    expect(result.stderr).toContain("https://nodejs.org");
    expect(result.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
  });

  it("in a clone where npm install ran, gives the command that runs it with the repository's Node.js 24, which works", () => {
    const { stderr } = run(older!.path, [entry, "--help"]);
    const command = stderr.split("\n").find((line) => line.startsWith("  npm exec"));
    expect(command).toBe(`  npm exec --prefix ${root} -- node ${entry} --help`);
    const result = run("sh", ["-c", command!]);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("Usage: proof-verify");
  });

  it("quotes the arguments of that command so that sh hands them back as given, $, quotes and spaces included", () => {
    const name = `it's $HOME "a".zip`;
    const { stderr } = run(older!.path, [entry, name]);
    const command = stderr.split("\n").find((line) => line.startsWith("  npm exec"));
    // The verifier gets the name untouched: it says that this very file does not exist.
    const result = run("sh", ["-c", command!]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`'${name}'`);
  });

  it("without the repository's Node.js 24 beside it, gives no such command, only how to install one", () => {
    const bin = join(scratch, "verifier/bin");
    mkdirSync(bin, { recursive: true });
    copyFileSync(entry, join(bin, "proof-verify.mjs"));
    const result = run(older!.path, [join(bin, "proof-verify.mjs"), "package.zip"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("proof-verify needs Node.js 24 or later");
    expect(result.stderr).not.toContain("npm exec");
  });

  it("is the command the verifier package installs (its bin), so npm link and npm exec get the check", () => {
    const { bin } = JSON.parse(readFileSync(join(root, "verifier/package.json"), "utf8"));
    const result = run(older!.path, [join(root, "verifier", bin["proof-verify"])]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("proof-verify needs Node.js 24 or later");
  });
});

describe("proof-verify on Node.js 24", () => {
  it("runs the verifier through the entry, its arguments passed on: --help prints the usage, exit 0", () => {
    const result = run(process.execPath, [entry, "--help"]);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("Usage: proof-verify <package.zip | unzipped folder>");
  });

  it("runs as verifier/README.md says, from a clone: npm exec --prefix verifier proof-verify -- --help, exit 0", () => {
    const result = run("npm", ["exec", "--prefix", "verifier", "proof-verify", "--", "--help"], root);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("Usage: proof-verify <package.zip | unzipped folder>");
  });
});
