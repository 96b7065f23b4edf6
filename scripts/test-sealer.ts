/** Runs the sealer's own tests with Node's test runner (they need Node, not workerd). */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const dir = resolve(import.meta.dirname, "../sealer/test");
const files = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".test.ts")) : [];
if (files.length === 0) {
  console.log("No sealer tests yet.");
  process.exit(0);
}
const result = spawnSync(process.execPath, ["--test", "--test-concurrency=1", ...files.map((name) => join(dir, name))], { stdio: "inherit" });
process.exit(result.status ?? 1);
