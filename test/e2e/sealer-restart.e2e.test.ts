import { afterAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";

/**
 * Issue 31 point 5 (ADR 0050): the sealer dies alone, as a Container can. `npm run dev` restarts it, as the
 * platform would, and the proofs it was sealing or about to seal are sealed within two minutes of the kill,
 * the Worker and its queues carrying on. Sweeps at production's pace (every 60 s).
 */

const PROOFS = 3;
const TWO_MINUTES_MS = 120_000;

const sealerPids = (stack: Stack) => [...stack.output().matchAll(/\[sealer\] started \(pid (\d+)\)/g)].map((match) => Number(match[1]));

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

let stack: Stack | undefined;
afterAll(async () => {
  await stack?.stop();
});

describe("npm run dev when the sealer alone dies", () => {
  it("restarts the sealer, and the proofs it was sealing are sealed within two minutes of the kill", { timeout: 8 * 60_000 }, async () => {
    stack = await startStack();
    const live = stack;
    const [firstPid] = sealerPids(live);
    expect(firstPid).toBeGreaterThan(0);
    const template = await request(`${live.baseUrl}/v1/capture-templates`, {
      token: live.testKey,
      body: { name: "Sealer restart", welcome: { title: "Hello" }, steps: [{ id: "photos", label: "Photos", instruction: "Every side", max_count: 3 }] },
    });
    expect(template.status).toBe(201);
    // Three captures made and completed together, handed to sealing at once; the sealer is killed as they
    // arrive there.
    const completions = await Promise.all(
      Array.from({ length: PROOFS }, async (_, n) => {
        const { completed } = await captureOverHttp(
          live,
          live.testKey,
          { external_reference: `sealer-restart-${Date.now()}-${n}`, party: "provider", template_id: template.body.id },
          [
            { file: "photo.jpg", type: "image/jpeg" },
            { file: "photo.png", type: "image/png" },
            { file: "photo.webp", type: "image/webp" },
          ],
        );
        return completed;
      }),
    );
    process.kill(firstPid!, "SIGKILL");
    const killedAt = Date.now();
    const outputAtKill = live.output().length;
    for (const completed of completions) expect(completed.status).toBe(200);

    await until(() => sealerPids(live).length >= 2, 60_000, "the sealer to be started again");
    expect(sealerPids(live)[1]).not.toBe(firstPid);
    expect(live.output()).toContain("[sealer] exited (SIGKILL); restarting it.");

    const sealedAfterMs = await Promise.all(
      completions.map(async (completed) => {
        const proof = await waitForProof(live, live.testKey, completed.body.proof_id, (p) => p.status !== "pending", TWO_MINUTES_MS + 30_000, 250).catch(
          (error: Error) => {
            throw new Error(`${error.message}\nThe stack's output, from the kill:\n${live.output().slice(outputAtKill)}`);
          },
        );
        expect(proof.status).toBe("sealed");
        expect(proof.files).toHaveLength(3);
        return Date.now() - killedAt;
      }),
    );
    console.log(
      `sealer killed with ${PROOFS} proofs handed to sealing; sealed ${sealedAfterMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ")} after the kill`,
    );
    expect(Math.max(...sealedAfterMs)).toBeLessThan(TWO_MINUTES_MS);
    expect((await request(`${live.baseUrl}/health`)).status).toBe(200);
  });
});
