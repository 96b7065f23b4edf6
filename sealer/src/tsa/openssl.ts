import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export async function openssl(args: string[], cwd?: string): Promise<string> {
  const { stdout, stderr } = await run("openssl", args, { cwd, maxBuffer: 16 * 1024 * 1024 });
  return `${stdout}${stderr}`;
}

/** Runs `work` in a fresh private directory, removed afterwards. */
export async function inScratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "sealer-"));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export { writeFile };
