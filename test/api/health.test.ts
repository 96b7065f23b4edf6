import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { createApiApp } from "../../src/routes/index.ts";
import { call, callJson } from "./support/client.ts";
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

describe("GET /health/details", () => {
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
    const production = { ...env, SEALER_URL: undefined, SEALER_SECRET: "sealer-secret-for-health", SEALER_CONTAINER: containers as unknown as DurableObjectNamespace };
    const request = new Request("http://localhost:8787/health/details", { headers: { Authorization: `Bearer ${env.SUPERVISION_TOKEN}` } });
    const body: any = await (await createApiApp().fetch(request, production, createExecutionContext())).json();
    expect(body.checks.timestamp_authority.status).toBe("ok");
    // The sealer answers its authority check to the Worker's bearer secret only.
    expect(asked).toEqual([expect.stringMatching(/^sealer-\d \/health\/tsa Bearer sealer-secret-for-health$/)]);
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
