/**
 * The API's fixed cost, as an integrator sees it: p50 latency of `GET /v1/me` (an authenticated read) and
 * `POST /v1/capture-sessions` (a creation) at 16 concurrent clients, as ratios to `GET /health` (no
 * authentication, no storage) measured in the same run against the same `npm run dev` stack.
 * `npm run bench` runs it after the sealing bench; `npm run bench:api` runs it alone on a stack of its own.
 */
import { startStack, type Stack } from "../test/e2e/support/stack.ts";
import { request } from "../test/e2e/support/http.ts";

const CLIENTS = 16;
const REQUESTS = 320;
/**
 * Each measure is split in rounds taken in turn (20 requests of each route, 16 times), so that a slow
 * moment of the machine, shared with other work, weighs on all three alike.
 */
const ROUNDS = 16;

export interface ApiBench {
  p50Ms: { health: number; me: number; create: number };
  meRatio: number;
  createRatio: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** `count` calls of `call` by `CLIENTS` concurrent clients; each call's latency in ms. */
async function latencies(count: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  let next = 0;
  const client = async () => {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      await call(i);
      samples.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return samples;
}

async function status(url: string, init: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  const body = await response.text();
  if (response.status >= 300) throw new Error(`API bench: ${init.method ?? "GET"} ${new URL(url).pathname} answered ${response.status}: ${body.slice(0, 300)}`);
  return response.status;
}

export async function benchApi(stack: Stack): Promise<ApiBench> {
  // A key of its own whose rate limit lets the run through (320 creations cost 640 units of a minute).
  const key = await request(`${stack.baseUrl}/admin/v1/organizations/${stack.organizationId}/api-keys`, {
    token: stack.adminToken,
    body: { mode: "test", rate_limit_per_minute: 100_000 },
  });
  if (key.status !== 201) throw new Error(`API bench key: ${JSON.stringify(key.body)}`);
  const auth = { Authorization: `Bearer ${key.body.key}` };
  const run = crypto.randomUUID();
  const calls = {
    health: () => status(`${stack.baseUrl}/health`, {}),
    me: () => status(`${stack.baseUrl}/v1/me`, { headers: auth }),
    create: (i: number) =>
      status(`${stack.baseUrl}/v1/capture-sessions`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": `bench-${run}-${i}` },
        body: JSON.stringify({ external_reference: `bench-${run}-${i}`, party: "provider" }),
      }),
  };
  const samples = { health: [] as number[], me: [] as number[], create: [] as number[] };
  // Warm-up: the isolate, the key in its cache, the Durable Objects.
  for (const name of ["health", "me", "create"] as const) await latencies(CLIENTS * 2, (i) => calls[name](1_000_000 + i));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ["health", "me", "create"] as const) {
      samples[name].push(...(await latencies(REQUESTS / ROUNDS, (i) => calls[name](round * REQUESTS + i))));
    }
  }
  const p50Ms = { health: median(samples.health), me: median(samples.me), create: median(samples.create) };
  return { p50Ms, meRatio: p50Ms.me / p50Ms.health, createRatio: p50Ms.create / p50Ms.health };
}

export function printApiBench(result: ApiBench): void {
  console.log(`\nAPI fixed cost (${REQUESTS} requests each, ${CLIENTS} concurrent clients, p50)\n`);
  console.log(`GET /health                                                ${result.p50Ms.health.toFixed(1).padStart(7)} ms`);
  console.log(`GET /v1/me                                                 ${result.p50Ms.me.toFixed(1).padStart(7)} ms`);
  console.log(`POST /v1/capture-sessions                                  ${result.p50Ms.create.toFixed(1).padStart(7)} ms`);
  console.log(`GET /v1/me / GET /health                                   ${result.meRatio.toFixed(2)} × (target ≤ 1.3 ×)`);
  console.log(`POST /v1/capture-sessions / GET /health                    ${result.createRatio.toFixed(2)} × (target ≤ 2.5 ×)`);
}

if (import.meta.main) {
  const stack = await startStack();
  try {
    printApiBench(await benchApi(stack));
  } finally {
    await stack.stop();
  }
}
