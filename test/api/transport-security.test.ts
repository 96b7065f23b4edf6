import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { baseSession, createSession } from "./support/sessions.ts";

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

describe("headers on every answer", () => {
  const answers = ["/health", "/openapi.json", "/v1/me", "/v1/nothing-here", "/p/prf_unknown", "/robots.txt"];

  it("sends X-Content-Type-Options: nosniff on JSON, HTML and error answers", async () => {
    for (const path of [...answers, `${CAPTURE}/c/${"x".repeat(43)}/session`, `${CAPTURE}/c/${"x".repeat(43)}`]) {
      const response = await call(path, { headers: { Accept: "text/html" } });
      await response.arrayBuffer();
      expect(response.headers.get("X-Content-Type-Options"), path).toBe("nosniff");
    }
  });

  it("sends Strict-Transport-Security on every HTTPS answer, errors included, and not over plain HTTP", async () => {
    for (const path of answers) {
      const response = await call(`https://api.example.com${path}`, { headers: { Accept: "text/html" } });
      await response.arrayBuffer();
      expect(response.headers.get("Strict-Transport-Security"), path).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
    }
    const plain = await call("/health");
    await plain.body?.cancel();
    expect(plain.headers.get("Strict-Transport-Security")).toBeNull();
  });
});

describe("the capture link's logo", () => {
  const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

  async function sessionWithLogo() {
    const org = await createOrganization();
    const theme = await callJson("/v1/capture-themes", { key: org.testKey, body: { name: "Logo", primary_color: "#000000", locale: "en" } });
    const put = await call(`/v1/capture-themes/${theme.body.id}/logo`, {
      key: org.testKey,
      method: "PUT",
      rawBody: PNG as unknown as string,
      headers: { "Content-Type": "image/png" },
    });
    await put.body?.cancel();
    const session = await createSession(org.testKey, baseSession());
    expect(session.status).toBe(201);
    return { session: session.body, token: tokenOf(session.body.capture_url) };
  }

  it("is served while the link may be used, then refused with 410 like the page once it is used", async () => {
    const { token } = await sessionWithLogo();
    const open = await call(`${CAPTURE}/c/${token}/logo`);
    await open.body?.cancel();
    expect(open.status).toBe(200);
    await uploadPhoto(token);
    expect((await captureCall(token, "/complete", { body: {} })).status).toBe(200);
    expect((await callJson(`${CAPTURE}/c/${token}/logo`)).body).toMatchObject({ status: 410, code: "capture_link_used" });
  });

  it("is refused with 410 once the link has expired", async () => {
    const { token, session } = await sessionWithLogo();
    await env.DB.prepare("UPDATE capture_sessions SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), session.id)
      .run();
    expect((await callJson(`${CAPTURE}/c/${token}/logo`)).body).toMatchObject({ status: 410, code: "capture_link_expired" });
  });
});
