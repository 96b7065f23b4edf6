import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { confirmWithOpenssl, warmOpenssl } from "../src/tsa/confirm-with-openssl.ts";
import { TimestampUnavailableError } from "../src/tsa/authority.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { pem, pkiDir } from "./support.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const authority = simulatedAuthority(pkiDir, "tsa-test", "Simulated");

/** The processes whose parent is `parent` (Linux's /proc). */
function childrenOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
      } catch {
        return false; // ended since the listing
      }
    })
    .map(Number);
}

/** The runner's shell: this process's one child running the confirmations' loop. */
function runnerShell(): number {
  const shells = childrenOf(process.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("openssl ts -verify"));
  assert.equal(shells.length, 1);
  return shells[0]!;
}

test("openssl confirms tokens over their manifests, several at once through the one runner", async () => {
  const manifests = ["first", "second", "third"].map(bytes);
  const stamps = await Promise.all(manifests.map((manifest) => obtainTimestamp(authority, manifest)));
  await Promise.all(stamps.map((stamp, i) => confirmWithOpenssl(stamp.response, manifests[i]!, authority.chainPem)));
});

test("openssl refuses a token over other data, and one that does not chain to the given roots", async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  await assert.rejects(confirmWithOpenssl(stamp.response, bytes("another manifest"), authority.chainPem), TimestampUnavailableError);
  await assert.rejects(confirmWithOpenssl(stamp.response, bytes("the manifest"), pem("c2pa-root.pem")), TimestampUnavailableError);
  // Refusals leave the runner able to confirm the next token.
  await confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
});

test("when the runner's shell stops, the confirmation under way fails as transient and the next starts a new shell", { timeout: 20_000 }, async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  warmOpenssl();
  const shell = runnerShell();
  // Stopped before the confirmation is sent, so that the shell dies without having started its openssl.
  process.kill(shell, "SIGSTOP");
  const confirmation = confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
  process.kill(shell, "SIGKILL");
  await assert.rejects(confirmation, TimestampUnavailableError);
  await confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
  assert.notEqual(runnerShell(), shell);
});

test("an openssl already started when its shell stops still answers its confirmation", { timeout: 20_000 }, async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  warmOpenssl();
  const shell = runnerShell();
  const confirmation = confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
  // The shell has started the confirmation's process once it has a child.
  while (childrenOf(shell).length === 0) await new Promise((resolve) => setImmediate(resolve));
  process.kill(shell, "SIGKILL");
  await confirmation;
});

test("the runner works in a temporary directory whose path has a backslash and a newline", { timeout: 20_000 }, async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  const directory = join(mkdtempSync(join(tmpdir(), "sealer-test-")), "a\\b\nc");
  mkdirSync(directory);
  warmOpenssl();
  const shell = runnerShell();
  process.kill(shell, "SIGKILL");
  while (childrenOf(process.pid).includes(shell)) await new Promise((resolve) => setImmediate(resolve));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = directory;
  try {
    await confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
});
