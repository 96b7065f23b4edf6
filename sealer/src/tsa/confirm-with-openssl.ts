import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TimestampUnavailableError } from "./authority.ts";

/** An `openssl ts -verify` made ready ahead of its token. */
export interface OpensslConfirmation {
  /** Runs openssl on the token and the manifest it must cover; rejects unless it prints `Verification: OK`. */
  confirm(response: Uint8Array, manifest: Uint8Array): Promise<void>;
  /** Ends the process if it is still there (the job ended before its manifest's timestamp, or failed meanwhile); settles once it has gone. */
  cancel(): Promise<void>;
}

/** Waits for the folder holding the three files on its standard input, then becomes openssl there. */
const VERIFY_IN_FOLDER = 'IFS= read -r folder && cd "$folder" && exec openssl ts -verify -data manifest.json -in proof.tsr -CAfile chain.pem';

/**
 * A second, independent verdict on the token a proof is sealed with: the command a verifier runs on the
 * published package (`openssl ts -verify -data manifest.json -in proof.tsr -CAfile chain.pem`, see
 * docs/trust-anchors.md). Its process is started when the job starts, long before the token exists, as a
 * shell that waits to become openssl: starting a process from one as large as the sealer holds the event
 * loop 7-10 ms, which at the start overlaps the first download instead of lengthening the job's tail
 * after its last signature (docs/adr/0024). openssl reads files by name (the sealer's pipes are sockets,
 * which it cannot open as /dev/fd/N), hence the folder.
 */
export function startOpensslConfirmation(chainPem: string): OpensslConfirmation {
  const child = spawn("sh", ["-c", VERIFY_IN_FOLDER], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  // A shell ended early (cancelled, or failed) makes writing to it fail: its exit and output tell the verdict.
  child.stdin.on("error", () => undefined);
  const exited = new Promise<string>((settle) => {
    child.once("error", (error) => settle(error.message));
    child.once("close", () => settle(output));
  });
  return {
    async confirm(response, manifest) {
      const folder = await mkdtemp(join(tmpdir(), "sealer-"));
      try {
        await Promise.all([writeFile(join(folder, "proof.tsr"), response), writeFile(join(folder, "manifest.json"), manifest), writeFile(join(folder, "chain.pem"), chainPem)]);
        child.stdin.end(`${folder}\n`);
        const verdict = await exited;
        if (!verdict.includes("Verification: OK")) {
          throw new TimestampUnavailableError(`timestamp response refused by openssl: ${verdict.trim().split("\n").slice(-3).join(" ")}`);
        }
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
    async cancel() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}
