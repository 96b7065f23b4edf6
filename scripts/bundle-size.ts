/**
 * The production Worker bundle and what it is made of (ADR 0039): runs the dry run of docs/operations.md with
 * esbuild's metafile and prints the bytes of index.js, its gzip size, and the bytes each npm package and each
 * folder of src/ and shared/ puts in it, largest first. Run it on two commits to say what a change added:
 * `--save` keeps the metafile, `--against` prints the difference from a kept one.
 * Usage: node scripts/bundle-size.ts [--save meta.json] [--against meta.json]
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? null : (process.argv[at + 1] ?? null);
};

/** Where an input of the bundle comes from: its npm package, or its folder under src/ or shared/. */
function partOf(input: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (dependency) return `npm ${dependency[1]}`;
  const parts = input.replace(/^(\.\.\/)*/, "").split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts.join("/");
}

function bytesByPart(metafile: Metafile): Map<string, number> {
  const output = Object.entries(metafile.outputs).find(([name]) => name.endsWith("index.js"))![1];
  const parts = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) parts.set(partOf(input), (parts.get(partOf(input)) ?? 0) + bytesInOutput);
  return parts;
}

const outdir = mkdtempSync(join(tmpdir(), "bundle-size-"));
const wrangler = join("node_modules", "wrangler", "bin", "wrangler.js");
const dryRun = ["deploy", "--dry-run", "--env", "production", "--containers-rollout=none", "--outdir", outdir, "--metafile", join(outdir, "meta.json")];
execFileSync(process.execPath, [wrangler, ...dryRun], { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
const bundle = readFileSync(join(outdir, "index.js"));
const metafile: Metafile = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8"));
const saved = option("--save");
if (saved !== null) copyFileSync(join(outdir, "meta.json"), saved);

const parts = bytesByPart(metafile);
const against = option("--against");
const before = against === null ? null : bytesByPart(JSON.parse(readFileSync(against, "utf8")));
const total = (dependencies: boolean) => [...parts].filter(([part]) => part.startsWith("npm ") === dependencies).reduce((sum, [, bytes]) => sum + bytes, 0);
console.log(`index.js: ${bundle.length} bytes (gzip -9: ${gzipSync(bundle, { level: 9 }).length}); npm packages ${total(true)}, own code ${total(false)}`);
const names = [...new Set([...parts.keys(), ...(before?.keys() ?? [])])];
const change = (name: string) => (parts.get(name) ?? 0) - (before?.get(name) ?? 0);
names.sort((a, b) => (before === null ? (parts.get(b) ?? 0) - (parts.get(a) ?? 0) : Math.abs(change(b)) - Math.abs(change(a))));
for (const name of names) {
  if (before !== null && change(name) === 0) continue;
  const delta = before === null ? "" : ` ${change(name) > 0 ? "+" : ""}${change(name)}`;
  console.log(`${String(parts.get(name) ?? 0).padStart(9)}${delta.padStart(10)}  ${name}`);
}
