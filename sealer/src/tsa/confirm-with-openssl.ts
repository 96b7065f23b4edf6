import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { TimestampUnavailableError } from "./authority.ts";

/**
 * For each folder read on its standard input, runs openssl there in a process of its own and writes
 * `<exit code> <folder>` when it has ended (its output is in the folder's `verdict` file).
 */
const VERIFY_EACH_FOLDER =
  'while IFS= read -r folder; do (cd "$folder" && openssl ts -verify -data manifest.json -in proof.tsr -CAfile chain.pem > verdict 2>&1; echo "$? $folder") & done';

/**
 * The process that starts every confirmation's openssl: a shell started once per sealer process. Starting
 * a process from one as large as the sealer holds its event loop 7-10 ms (`fork` of its memory map), which
 * the signing threads wait on; the shell is small, and starts openssl from itself (docs/adr/0024).
 */
class OpensslRunner {
  #shell: ChildProcessWithoutNullStreams | null = null;
  readonly #waiting = new Map<string, { done: (code: number) => void; failed: (error: Error) => void }>();

  /** Starts the shell now, so that the first job does not pay for it. */
  warm(): void {
    this.#started();
  }

  /** openssl's exit code in `folder`. */
  run(folder: string): Promise<number> {
    const shell = this.#started();
    return new Promise<number>((done, failed) => {
      this.#waiting.set(folder, { done, failed });
      this.#hold(true);
      shell.stdin.write(`${folder}\n`);
    });
  }

  #started(): ChildProcessWithoutNullStreams {
    if (this.#shell) return this.#shell;
    const shell = spawn("sh", ["-c", VERIFY_EACH_FOLDER], { stdio: ["pipe", "pipe", "pipe"] });
    this.#shell = shell;
    shell.stdin.on("error", () => undefined);
    shell.stderr.resume();
    createInterface({ input: shell.stdout }).on("line", (line) => {
      const separator = line.indexOf(" ");
      const folder = line.slice(separator + 1);
      this.#waiting.get(folder)?.done(Number(line.slice(0, separator)));
      this.#waiting.delete(folder);
      this.#hold(this.#waiting.size > 0);
    });
    const ended = (reason: string) => {
      if (this.#shell === shell) this.#shell = null;
      for (const waiting of this.#waiting.values()) waiting.failed(new TimestampUnavailableError(`the openssl runner stopped: ${reason}`));
      this.#waiting.clear();
    };
    shell.once("error", (error) => ended(error.message));
    shell.once("exit", (code, signal) => ended(`exit ${code ?? signal}`));
    this.#hold(false);
    return shell;
  }

  /** The idle shell keeps no process alive; one with a confirmation under way does. */
  #hold(busy: boolean): void {
    const shell = this.#shell;
    if (!shell) return;
    // Its pipes are sockets (net.Socket), which is what `ref` and `unref` act on.
    const pipes = [shell.stdin, shell.stdout, shell.stderr] as unknown as Socket[];
    for (const handle of [shell, ...pipes]) {
      if (busy) handle.ref();
      else handle.unref();
    }
  }
}

const runner = new OpensslRunner();

/** Starts the process that runs the confirmations (the sealer does so at start). */
export const warmOpenssl = () => runner.warm();

/**
 * A second, independent verdict on the token a proof is sealed with: exactly the command a verifier runs
 * on the published package (`openssl ts -verify -data manifest.json -in proof.tsr -CAfile chain.pem`, see
 * docs/trust-anchors.md), in a folder of its own, removed afterwards.
 */
export async function confirmWithOpenssl(response: Uint8Array, manifest: Uint8Array, chainPem: string): Promise<void> {
  // Written and read synchronously: a few KB each, where libuv's thread pool, which the asynchronous calls
  // would wait for, is busy with the last thumbnails when the proof's token comes (the job's tail).
  const folder = mkdtempSync(join(tmpdir(), "sealer-"));
  try {
    writeFileSync(join(folder, "proof.tsr"), response);
    writeFileSync(join(folder, "manifest.json"), manifest);
    writeFileSync(join(folder, "chain.pem"), chainPem);
    const code = await runner.run(folder);
    const verdict = readFileSync(join(folder, "verdict"), "utf8");
    if (code !== 0 || !verdict.includes("Verification: OK")) {
      throw new TimestampUnavailableError(`timestamp response refused by openssl: ${verdict.trim().split("\n").slice(-3).join(" ")}`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
