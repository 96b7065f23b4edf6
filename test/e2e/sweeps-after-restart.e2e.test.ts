import { afterAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";

/**
 * A timestamp authority that takes every request and never answers: a live seal asking it is caught in
 * the middle of its run for as long as the test wants.
 */
async function silentAuthority(): Promise<{ url: string; asked: () => number; close: () => Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let asked = 0;
  const server: Server = createServer((incoming: IncomingMessage) => {
    asked += 1;
    incoming.resume();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    asked: () => asked,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** The authority's certificate chain, a file the sealer needs whenever TSA_URL is set (sealer/certs/README.md). */
function authorityCertificates(dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-subj",
      "/CN=Silent test authority",
      "-days",
      "1",
      "-keyout",
      join(dir, "tsa.key"),
      "-out",
      join(dir, "tsa-chain.pem"),
    ],
    { stdio: "ignore" },
  );
  return dir;
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

const stateDir = mkdtempSync(join(tmpdir(), "proof-restart-"));
const stacks: Stack[] = [];
let authority: Awaited<ReturnType<typeof silentAuthority>> | undefined;
afterAll(async () => {
  for (const stack of stacks) await stack.stop();
  await authority?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("npm run dev runs the cron sweeps, as production does", () => {
  // The stalled-sealing sweep sends a proof again once it has shown no progress for 45 s (ADR 0050); the
  // restart itself takes a while on a loaded machine, hence the generous timeout.
  it("a live proof interrupted mid-seal by stopping the stack is sealed after a restart on the same state, by the sweep alone", {
    timeout: 12 * 60_000,
  }, async () => {
    authority = await silentAuthority();
    // Sweeps every 10 s so that the wait ends soon after the proof is overdue; the rule is the same at 60 s.
    const certs = authorityCertificates(join(stateDir, "certs"));
    const first = await startStack({ stateDir, env: { TSA_URL: authority.url, SEALER_CERTS_DIR: certs, DEV_SWEEP_INTERVAL_SECONDS: "10" } });
    stacks.push(first);
    const template = await request(`${first.baseUrl}/v1/capture-templates`, {
      token: first.liveKey,
      body: { name: "Restart", welcome: { title: "Hello" }, steps: [{ id: "photos", label: "Photos", instruction: "Every side", max_count: 2 }] },
    });
    const { completed } = await captureOverHttp(
      first,
      first.liveKey,
      { external_reference: `restart-${Date.now()}`, party: "provider", stage: "checkin", template_id: template.body.id },
      [{ file: "photo.jpg", type: "image/jpeg" }],
    );
    expect(completed.status).toBe(200);
    const proofId: string = completed.body.proof_id;

    // The sealer is now waiting on the authority: the proof is being sealed. Stop everything there.
    await until(() => authority!.asked() > 0, 60_000, "the seal to reach the timestamp authority");
    await first.stop();
    await authority.close();

    // Same database, storage and keys, the local authority again; nobody sends the proof anywhere.
    const second = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "10" } });
    stacks.push(second);
    expect(second.liveKey).toBe(first.liveKey);
    const pending = await request(`${second.baseUrl}/v1/proofs/${proofId}`, { token: second.liveKey });
    expect(pending.body.status).toBe("pending");
    expect(second.output()).toContain("/__scheduled");

    const restartedAt = Date.now();
    const proof = await waitForProof(second, second.liveKey, proofId, (p) => p.status !== "pending", 9 * 60_000);
    expect(proof.status).toBe("sealed");
    expect(proof.files).toHaveLength(1);
    // Its last progress was before the stop: once the stack is back, the sweep sends it within two minutes.
    const sealedAfterMs = Date.now() - restartedAt;
    console.log(`proof interrupted mid-seal sealed ${(sealedAfterMs / 1000).toFixed(1)} s after the stack was back`);
    expect(sealedAfterMs).toBeLessThan(2 * 60_000);
  });
});
