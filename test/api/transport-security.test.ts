import { describe, expect, it } from "vitest";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";

const expectHttpsRequired = (response: { status: number; body: any }) => {
  expect(response.status).toBe(403);
  expect(response.body.code).toBe("https_required");
};

describe("HTTPS decided from the request's own scheme", () => {
  it("refuses plain HTTP to a public host even when the client claims X-Forwarded-Proto: https", async () => {
    expectHttpsRequired(await callJson("http://api.example.com/health", { headers: { "X-Forwarded-Proto": "https" } }));
  });

  it("counts only localhost, 127.0.0.1 and [::1] as loopback, not a public name starting with 127.", async () => {
    for (const host of ["127.evil.example", "127.0.0.1.nip.io", "app.localhost", "localhost.evil.example"]) {
      expectHttpsRequired(await callJson(`http://${host}/health`));
    }
    for (const host of ["localhost:8787", "127.0.0.1:9", "[::1]:8787"]) {
      const response = await call(`http://${host}/health`);
      expect(response.status, host).not.toBe(403);
      await response.body?.cancel();
    }
  });

  it("refuses http://127.evil.example as a return origin, as any other plain-HTTP public origin", async () => {
    const org = await createOrganization();
    const response = await callJson("/v1/settings", { key: org.testKey, method: "PATCH", body: { allowed_return_origins: ["http://127.evil.example:3000"] } });
    expect(response.body).toMatchObject({ status: 422, code: "validation_failed", field: "/allowed_return_origins/0" });
  });

  it("refuses http://127.evil.example as a test session's return_url", async () => {
    const org = await createOrganization();
    const response = await callJson("/v1/capture-sessions", {
      key: org.testKey,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      body: { external_reference: "ref", party: "provider", return_url: "http://127.evil.example/done" },
    });
    expect(response.body).toMatchObject({ status: 422, code: "validation_failed", field: "/return_url" });
  });
});
