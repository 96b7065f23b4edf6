import { beforeEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { createApiApp } from "../../src/routes/index.ts";
import type { Env } from "../../src/env.ts";
import { AUTHORITY_CHECK_TTL_SECONDS, authorityCheckCacheKey } from "../../src/routes/health/checks.ts";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import packageJson from "../../package.json" with { type: "json" };

describe("GET /health", () => {
  it("answers exactly status, version and commit", async () => {
    const { status, body } = await callJson("/health");
    expect(status).toBe(200);
    expect(body).toEqual({ status: "ok", version: packageJson.version, commit: env.BUILD_COMMIT });
    expect(env.BUILD_COMMIT).toMatch(/^[0-9a-f]{40}$|^unknown$/);
  });
});

/** A stand-in for the sealer containers' namespace that records which instance is asked what. */
function recordingContainers(answer: () => Response) {
  const asked: string[] = [];
  const namespace = {
    idFromName: (name: string) => name,
    get: (name: string) => ({
      fetch: async (request: Request) => {
        asked.push(`${name} ${new URL(request.url).pathname} ${request.headers.get("Authorization")}`);
        return answer();
      },
    }),
  };
  return { asked, namespace: namespace as unknown as Env["SEALER_CONTAINER"] };
}

const details = (target: typeof env) =>
  createApiApp().fetch(
    new Request("http://localhost:8787/health/details", { headers: { Authorization: `Bearer ${env.SUPERVISION_TOKEN}` } }),
    target,
    createExecutionContext(),
  );

describe("GET /health/details", () => {
  // Each test starts without a remembered authority check (the Cache API outlives a test).
  beforeEach(async () => {
    for (const sealerUrl of [undefined, "http://127.0.0.1:9"]) await caches.default.delete(authorityCheckCacheKey({ ...env, SEALER_URL: sealerUrl }));
  });

  it("refuses a missing token, a wrong token and an API key with 401", async () => {
    const org = await createOrganization();
    for (const key of [undefined, "wrong-token", org.testKey]) {
      const { status, body, headers } = await callJson("/health/details", { key });
      expect(status).toBe(401);
      expect(body.code).toBe("unauthenticated");
      expect(headers.get("Content-Type")).toBe("application/problem+json");
    }
  });

  it("checks database, storage and timestamp authority with the supervision token", async () => {
    // No sealer at all: neither a local process nor the container binding.
    const response = await createApiApp().fetch(
      new Request("http://localhost:8787/health/details", { headers: { Authorization: `Bearer ${env.SUPERVISION_TOKEN}` } }),
      { ...env, SEALER_URL: undefined, SEALER_CONTAINER: undefined },
      createExecutionContext(),
    );
    const status = response.status;
    const body: any = await response.json();
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["checks", "commit", "status", "version"]);
    expect(body.status).toBe("ok");
    expect(body.checks.database.status).toBe("ok");
    expect(body.checks.storage.status).toBe("ok");
    expect(typeof body.checks.database.latency_ms).toBe("number");
    // No sealer is configured in the unit-test environment: never reported as ok.
    expect(body.checks.timestamp_authority).toEqual({ status: "not_configured" });
    // Every D1 shard (wrangler.toml's SHARDS) is probed and named.
    expect(Object.keys(body.checks.database.shards)).toEqual(["00", "01", "02"]);
    for (const shard of Object.values<any>(body.checks.database.shards)) expect(shard).toEqual({ status: "ok", latency_ms: expect.any(Number) });
  });

  it("is degraded with 503 when one D1 shard does not answer, naming it", async () => {
    const unanswered = { bind: () => unanswered, first: () => Promise.reject(new Error("D1_ERROR: shard down")) };
    const down = { prepare: () => unanswered } as unknown as D1Database;
    const response = await details({ ...env, SEALER_URL: undefined, SEALER_CONTAINER: undefined, DB_01: down } as unknown as typeof env);
    const body: any = await response.json();
    expect(response.status).toBe(503);
    expect(body.status).toBe("degraded");
    expect(body.checks.database.status).toBe("error");
    expect(body.checks.database.shards["01"].status).toBe("error");
    expect([body.checks.database.shards["00"].status, body.checks.database.shards["02"].status]).toEqual(["ok", "ok"]);
  });

  it("asks a sealer container in production, where there is no SEALER_URL", async () => {
    const asked: string[] = [];
    const containers = {
      idFromName: (name: string) => name,
      get: (name: string) => ({
        fetch: async (request: Request) => {
          asked.push(`${name} ${new URL(request.url).pathname} ${request.headers.get("Authorization")}`);
          return Response.json({ status: "ok", latency_ms: 3 });
        },
      }),
    };
    const production = {
      ...env,
      SEALER_URL: undefined,
      SEALER_SECRET: "sealer-secret-for-health",
      SEALER_CONTAINER: containers as unknown as DurableObjectNamespace,
    };
    const request = new Request("http://localhost:8787/health/details", { headers: { Authorization: `Bearer ${env.SUPERVISION_TOKEN}` } });
    const body: any = await (await createApiApp().fetch(request, production, createExecutionContext())).json();
    expect(body.checks.timestamp_authority.status).toBe("ok");
    // The sealer answers its authority check to the Worker's bearer secret only.
    expect(asked).toEqual([expect.stringMatching(/^sealer-\d \/health\/tsa Bearer sealer-secret-for-health$/)]);
  });

  it("checks the authority at most once per 5 minutes (1 after a failure), through one and the same container", async () => {
    const healthy = recordingContainers(() => Response.json({ status: "ok", latency_ms: 3 }));
    const production = { ...env, SEALER_URL: undefined, SEALER_SECRET: "sealer-secret-for-health", SEALER_CONTAINER: healthy.namespace };
    for (let call = 0; call < 4; call++) expect(((await (await details(production)).json()) as any).checks.timestamp_authority.status).toBe("ok");
    expect(healthy.asked).toHaveLength(1);
    const kept = await caches.default.match(authorityCheckCacheKey(production));
    expect(kept?.headers.get("Cache-Control")).toBe(`max-age=${AUTHORITY_CHECK_TTL_SECONDS.ok}`);
    await kept?.body?.cancel();

    await caches.default.delete(authorityCheckCacheKey(production));
    const concurrent = await Promise.all(Array.from({ length: 5 }, async () => (await details(production)).json()));
    expect(concurrent).toHaveLength(5);
    expect(new Set(healthy.asked.map((line) => line.split(" ")[0])).size).toBe(1);

    await caches.default.delete(authorityCheckCacheKey(production));
    const failing = recordingContainers(() => new Response("authority down", { status: 503 }));
    const down = { ...production, SEALER_CONTAINER: failing.namespace };
    for (let call = 0; call < 3; call++) expect((await details(down)).status).toBe(503);
    expect(failing.asked).toHaveLength(1);
    const keptFailure = await caches.default.match(authorityCheckCacheKey(down));
    expect(keptFailure?.headers.get("Cache-Control")).toBe(`max-age=${AUTHORITY_CHECK_TTL_SECONDS.error}`);
    await keptFailure?.body?.cancel();
  });

  it("is degraded with 503 when the timestamp authority cannot be reached", async () => {
    const app = createApiApp();
    const unreachable = { ...env, SEALER_URL: "http://127.0.0.1:9" };
    const request = new Request("http://localhost:8787/health/details", { headers: { Authorization: `Bearer ${env.SUPERVISION_TOKEN}` } });
    const response = await app.fetch(request, unreachable, createExecutionContext());
    const body: any = await response.json();
    expect(response.status).toBe(503);
    expect(body.status).toBe("degraded");
    expect(body.checks.timestamp_authority.status).toBe("error");
    expect(body.checks.database.status).toBe("ok");
  });
});
