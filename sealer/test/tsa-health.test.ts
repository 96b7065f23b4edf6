import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { TimestampAuthority } from "../src/tsa/authority.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { TSA_HEALTH_CACHE_MS, TSA_HEALTH_ERROR_CACHE_MS, tsaHealthCheck } from "../src/tsa/health-check.ts";
import { freePort, waitForHttp } from "../../scripts/lib/ports.ts";
import { pkiDir } from "./support.ts";
import { SealerErrorSchema } from "../../shared/sealer-protocol.ts";

/** The local authority, counting the timestamps it is asked for. */
function countingAuthority(): { authority: TimestampAuthority; requests: () => number; fail: (value: boolean) => void } {
  const real = simulatedAuthority(pkiDir, "tsa-live", "Local Timestamp Authority");
  let requests = 0;
  let failing = false;
  const authority = {
    ...real,
    respond: async (request: Uint8Array) => {
      requests++;
      if (failing) throw new Error("authority down");
      return real.respond(request);
    },
  };
  return { authority, requests: () => requests, fail: (value) => (failing = value) };
}

test("the authority's health buys one timestamp per cache period, shared by concurrent callers", async () => {
  let clock = Date.parse("2026-11-23T06:00:00Z");
  const { authority, requests } = countingAuthority();
  const health = tsaHealthCheck(authority, () => clock);
  const [first, second] = await Promise.all([health(), health()]);
  assert.equal(first.status, "ok");
  assert.deepEqual(second, first);
  clock += TSA_HEALTH_CACHE_MS - 1;
  assert.deepEqual(await health(), first);
  assert.equal(requests(), 1);
  clock += 1;
  const later = await health();
  assert.equal(requests(), 2);
  assert.notEqual(later.checked_at, first.checked_at);
});

test("a failed check is repeated sooner than a good one", async () => {
  let clock = Date.parse("2026-11-23T06:00:00Z");
  const { authority, requests, fail } = countingAuthority();
  const health = tsaHealthCheck(authority, () => clock);
  fail(true);
  assert.equal((await health()).status, "error");
  clock += TSA_HEALTH_ERROR_CACHE_MS - 1;
  assert.equal((await health()).status, "error");
  assert.equal(requests(), 1);
  fail(false);
  clock += 1;
  assert.equal((await health()).status, "ok");
  assert.equal(requests(), 2);
});

test("the sealer's /health/tsa and /seal answer only to its bearer secret (401 in the protocol's error body), and /health/tsa repeats its last check", async () => {
  const port = await freePort();
  const secret = "sealer-health-test-secret";
  const sealer = spawn(process.execPath, [join(import.meta.dirname, "../src/main.ts")], {
    env: { ...process.env, SEALER_PORT: String(port), SEALER_SECRET: secret, PKI_DIR: pkiDir, TSA_URL: "" },
    stdio: "ignore",
  });
  let alive = true;
  sealer.on("exit", () => (alive = false));
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, 30_000, () => alive);
    const url = `http://127.0.0.1:${port}/health/tsa`;
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${secret}x`]) {
      const response = await fetch(url, { headers: authorization ? { Authorization: authorization } : {} });
      assert.equal(response.status, 401);
      assert.equal(SealerErrorSchema.parse(await response.json()).code, "unauthenticated");
    }
    const seal = await fetch(`http://127.0.0.1:${port}/seal`, { method: "POST", headers: { Authorization: "Bearer wrong" }, body: "{}" });
    assert.equal(seal.status, 401);
    assert.equal(SealerErrorSchema.parse(await seal.json()).code, "unauthenticated");
    const ask = async () => (await (await fetch(url, { headers: { Authorization: `Bearer ${secret}` } })).json()) as { status: string; checked_at: string };
    const first = await ask();
    assert.equal(first.status, "ok");
    assert.equal((await ask()).checked_at, first.checked_at);
  } finally {
    sealer.kill("SIGTERM");
  }
});
