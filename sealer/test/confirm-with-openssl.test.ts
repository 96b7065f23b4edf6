import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

/** Waits until this process has seen its child `pid` end (and so its `exit`). */
async function ended(pid: number): Promise<void> {
  while (childrenOf(process.pid).includes(pid)) await new Promise((resolve) => setImmediate(resolve));
}

/** Kills the runner's shell and waits until it has ended, so that the next confirmation starts a new one. */
async function stopRunnerShell(): Promise<void> {
  warmOpenssl();
  const shell = runnerShell();
  process.kill(shell, "SIGKILL");
  await ended(shell);
}

/** Runs `work` with the environment variable `name` set to `value`. */
async function withEnvironment(name: string, value: string, work: () => Promise<void>): Promise<void> {
  const previous = process.env[name];
  process.env[name] = value;
  try {
    await work();
  } finally {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  }
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
  // A new shell, so that its only child is the confirmation's process (not an earlier one ending).
  await stopRunnerShell();
  warmOpenssl();
  const shell = runnerShell();
  const confirmation = confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
  // The shell has started the confirmation's process once it has a child.
  while (childrenOf(shell).length === 0) await new Promise((resolve) => setImmediate(resolve));
  process.kill(shell, "SIGKILL");
  await confirmation;
  await ended(shell);
});

test("the runner works in a temporary directory whose path has a backslash and a newline", { timeout: 20_000 }, async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  const directory = join(mkdtempSync(join(tmpdir(), "sealer-test-")), "a\\b\nc");
  mkdirSync(directory);
  await stopRunnerShell();
  await withEnvironment("TMPDIR", directory, () => confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem));
});

test("a hung openssl fails its confirmation as transient once the time is up, and is stopped with its shell", { timeout: 20_000 }, async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  const bin = mkdtempSync(join(tmpdir(), "sealer-test-"));
  const pidFile = join(bin, "hung.pid");
  writeFileSync(join(bin, "openssl"), `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 30\n`);
  chmodSync(join(bin, "openssl"), 0o755);
  await stopRunnerShell();
  await withEnvironment("PATH", `${bin}:${process.env.PATH}`, async () => {
    const started = Date.now();
    await assert.rejects(confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem, 300), TimestampUnavailableError);
    assert.ok(Date.now() - started < 5_000);
  });
  const hung = Number(readFileSync(pidFile, "utf8"));
  const running = () => existsSync(`/proc/${hung}`) && !readFileSync(`/proc/${hung}/stat`, "utf8").includes(") Z ");
  while (running()) await new Promise((resolve) => setTimeout(resolve, 10));
  // The next confirmation runs in a new shell, with the real openssl.
  await confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
});
