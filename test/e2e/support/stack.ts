import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer } from "node:net";

export interface Stack {
  baseUrl: string;
  captureBaseUrl: string;
  testKey: string;
  liveKey: string;
  adminToken: string;
  supervisionToken: string;
  organizationId: string;
  sealerUrl: string | null;
  output: () => string;
  stop: () => Promise<void>;
}

const root = resolve(import.meta.dirname, "../../..");

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

/**
 * Starts `npm run dev` (through its script) on a free port with its own database, like a developer would.
 * With `stateDir`, the database, storage and keys live there and outlast `stop()`, so a second stack
 * started on the same `stateDir` finds them as a restarted `npm run dev` would.
 */
export async function startStack(options: { env?: Record<string, string>; stateDir?: string } = {}): Promise<Stack> {
  const port = await freePort();
  const scratch = options.stateDir ?? mkdtempSync(join(tmpdir(), "proof-stack-"));
  const child = spawn(process.execPath, [join(root, "scripts/dev.ts")], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(port), PERSIST_DIR: join(scratch, "state"), DEV_LOCAL_DIR: join(scratch, "local"), ...options.env },
  });
  let output = "";
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((done) => {
        child.once("exit", done);
        setTimeout(done, 5000);
      });
    }
    if (options.stateDir === undefined) rmSync(scratch, { recursive: true, force: true });
  };
  return new Promise((done, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((candidate) => candidate.startsWith("DEV_STACK_READY "));
      if (line) {
        child.stdout?.off("data", onData);
        child.stdout?.on("data", (more: Buffer) => (output += more.toString()));
        done({ ...JSON.parse(line.slice("DEV_STACK_READY ".length)), output: () => output, stop });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => fail(new Error(`npm run dev exited (${code}) before it was ready:\n${output}`)));
  });
}
