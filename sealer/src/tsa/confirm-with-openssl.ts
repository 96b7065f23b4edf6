import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { TimestampUnavailableError } from "./authority.ts";

/**
 * For each folder name read on its standard input (a folder in its working directory), runs openssl there in
 * a process of its own and writes `<exit code> <name>` when it has ended (its output is in the folder's
 * `verdict` file). printf, not echo: dash's echo interprets backslashes.
 */
const VERIFY_EACH_FOLDER =
  'while IFS= read -r folder; do (cd "$folder" && openssl ts -verify -data manifest.json -in proof.tsr -CAfile chain.pem > verdict 2>&1; printf \'%s %s\\n\' "$?" "$folder") & done';

type Waiting = { done: (code: number) => void; failed: (error: Error) => void };

/** openssl answers in about 10 ms; one that has not answered in this long is hung. */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * One shell and the confirmations sent to it. They are its own, so that a shell that stops fails only
 * those; they fail when its output closes, not when it exits, so that answers already in the pipe count.
 */
class VerifyingShell {
  /**
   * Where the confirmations' folders are made: the shell runs there, and only a folder's name (from
   * mkdtemp, letters and digits) crosses the line protocol, whatever characters the directory's path has.
   */
  readonly directory = tmpdir();
  readonly #process: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<string, Waiting>();
  readonly #exited: () => void;
  #closed = false;

  /** `exited` is called once the shell can take no more folders. */
  constructor(exited: () => void) {
    this.#exited = exited;
    // A process group of its own, so that stopping it stops the openssl processes it started too.
    const shell = spawn("sh", ["-c", VERIFY_EACH_FOLDER], { cwd: this.directory, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    this.#process = shell;
    shell.stdin.on("error", () => undefined);
    shell.stderr.resume();
    createInterface({ input: shell.stdout }).on("line", (line) => {
      const separator = line.indexOf(" ");
      const name = line.slice(separator + 1);
      this.#waiting.get(name)?.done(Number(line.slice(0, separator)));
      this.#waiting.delete(name);
      this.#hold(this.#waiting.size > 0);
    });
    let failure = "";
    shell.once("error", (error) => {
      failure = error.message;
      exited();
    });
    shell.once("exit", exited);
    shell.once("close", (code, signal) => {
      this.#closed = true;
      for (const waiting of this.#waiting.values()) {
        waiting.failed(new TimestampUnavailableError(`the openssl runner stopped: ${failure || `exit ${code ?? signal}`}`));
      }
      this.#waiting.clear();
    });
    this.#hold(false);
  }

  /**
   * openssl's exit code in the folder `name` of `directory`. One that does not answer within `timeoutMs`
   * fails, and stops this shell with every process it started (the next confirmation starts a new one).
   */
  run(name: string, timeoutMs: number): Promise<number> {
    return new Promise<number>((done, failed) => {
      if (this.#closed) {
        failed(new TimestampUnavailableError("the openssl runner stopped"));
        return;
      }
      const timer = setTimeout(() => {
        this.#waiting.delete(name);
        failed(new TimestampUnavailableError(`openssl did not answer within ${timeoutMs} ms`));
        this.#stop();
      }, timeoutMs);
      const settled = () => clearTimeout(timer);
      this.#waiting.set(name, {
        done: (code) => {
          settled();
          done(code);
        },
        failed: (error) => {
          settled();
          failed(error);
        },
      });
      this.#hold(true);
      this.#process.stdin.write(`${name}\n`);
    });
  }

  /** Kills the shell's process group (the shell and the openssl processes it started) and takes no more folders. */
  #stop(): void {
    this.#exited();
    const pid = this.#process.pid;
    if (pid === undefined) return; // never started
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already ended
    }
  }

  /** The idle shell keeps no process alive; one with a confirmation under way does. */
  #hold(busy: boolean): void {
    // Its pipes are sockets (net.Socket), which is what `ref` and `unref` act on.
    const pipes = [this.#process.stdin, this.#process.stdout, this.#process.stderr] as unknown as Socket[];
    for (const handle of [this.#process, ...pipes]) {
      if (busy) handle.ref();
      else handle.unref();
    }
  }
}

/**
 * The process that starts every confirmation's openssl: a shell started once per sealer process, and again
 * after it stops. Starting a process from one as large as the sealer holds its event loop 7-10 ms (`fork`
 * of its memory map), which the signing threads wait on; the shell is small, and starts openssl from
 * itself (docs/adr/0024).
 */
class OpensslRunner {
  #shell: VerifyingShell | null = null;

  /** The running shell, started now if there is none. */
  shell(): VerifyingShell {
    if (this.#shell) return this.#shell;
    const shell: VerifyingShell = new VerifyingShell(() => {
      if (this.#shell === shell) this.#shell = null;
    });
    this.#shell = shell;
    return shell;
  }
}

const runner = new OpensslRunner();

/** Starts the process that runs the confirmations (the sealer does so at start). */
export const warmOpenssl = () => {
  runner.shell();
};

/**
 * A second, independent verdict on the token a proof is sealed with: exactly the command a verifier runs
 * on the published package (`openssl ts -verify -data manifest.json -in proof.tsr -CAfile chain.pem`, see
 * docs/trust-anchors.md), in a folder of its own, removed afterwards. An openssl that has not answered
 * within `timeoutMs` is hung: the confirmation fails as transient.
 */
export async function confirmWithOpenssl(response: Uint8Array, manifest: Uint8Array, chainPem: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
  // Written and read synchronously: a few KB each, where libuv's thread pool, which the asynchronous calls
  // would wait for, is busy with the last thumbnails when the proof's token comes (the job's tail).
  const shell = runner.shell();
  const folder = mkdtempSync(join(shell.directory, "sealer-"));
  try {
    writeFileSync(join(folder, "proof.tsr"), response);
    writeFileSync(join(folder, "manifest.json"), manifest);
    writeFileSync(join(folder, "chain.pem"), chainPem);
    const code = await shell.run(basename(folder), timeoutMs);
    const verdict = readFileSync(join(folder, "verdict"), "utf8");
    if (code !== 0 || !verdict.includes("Verification: OK")) {
      throw new TimestampUnavailableError(`timestamp response refused by openssl: ${verdict.trim().split("\n").slice(-3).join(" ")}`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
