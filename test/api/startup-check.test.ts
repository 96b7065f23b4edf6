import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index.ts";
import type { Env } from "../../src/env.ts";
import { configurationProblems, MAX_SETTING_BYTES } from "../../src/startup-check.ts";

/** A complete production configuration (values are stand-ins). */
const production = (): Env => ({
  ...env,
  API_BASE_URL: "https://api.proof-sealing.example",
  CAPTURE_BASE_URL: "https://capture.proof-sealing.example",
  ADMIN_TOKEN: "admin",
  SUPERVISION_TOKEN: "supervision",
  SEALER_SECRET: "sealer",
  WEBHOOK_SECRET_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
  UPLOAD_URL_SIGNING_KEY: "signing",
  C2PA_SIGNING_KEY_PEM: "-----BEGIN PRIVATE KEY-----…",
  C2PA_TEST_SIGNING_KEY_PEM: "-----BEGIN PRIVATE KEY-----test…",
  PROOF_SEAL_KEY_PEM: "-----BEGIN PRIVATE KEY-----seal…",
  PROOF_SEAL_TEST_KEY_PEM: "-----BEGIN PRIVATE KEY-----seal test…",
  TSA_URL: "https://tsa.example/tsr",
});

describe("the Worker's startup check", () => {
  it("accepts a complete production configuration, and the local one", () => {
    expect(configurationProblems(production())).toEqual([]);
    expect(configurationProblems(env)).toEqual([]);
  });

  it("names each missing production secret and an incomplete set of R2 credentials", () => {
    const {
      ADMIN_TOKEN: _admin,
      TSA_URL: _tsa,
      UPLOAD_URL_SIGNING_KEY: _signing,
      C2PA_TEST_SIGNING_KEY_PEM: _test,
      PROOF_SEAL_TEST_KEY_PEM: _sealTest,
      ...rest
    } = production();
    expect(configurationProblems({ ...rest, R2_ACCESS_KEY_ID: "id", R2_S3_ENDPOINT: "https://r2.example" } as Env)).toEqual([
      "ADMIN_TOKEN is not set",
      "C2PA_TEST_SIGNING_KEY_PEM is not set",
      "PROOF_SEAL_TEST_KEY_PEM is not set",
      "TSA_URL is not set",
      "R2_SECRET_ACCESS_KEY is not set (the other R2 S3 settings are)",
      "R2_BUCKET_NAME is not set (the other R2 S3 settings are)",
    ]);
  });

  it("names a setting over 5 KB, a former certificate variable, and plain http in production", () => {
    const problems = configurationProblems({
      ...production(),
      C2PA_SIGNING_KEY_PEM: "k".repeat(MAX_SETTING_BYTES + 1),
      TSA_CHAIN_PEM: "-----BEGIN CERTIFICATE-----…",
      CAPTURE_BASE_URL: "http://capture.proof-sealing.example",
    } as Env);
    expect(problems).toEqual([
      `C2PA_SIGNING_KEY_PEM is ${MAX_SETTING_BYTES + 1} bytes, over the ${MAX_SETTING_BYTES} a Worker secret or variable can hold`,
      "TSA_CHAIN_PEM is no longer read: the sealer's certificates are files of its image (sealer/certs/README.md)",
      "CAPTURE_BASE_URL must use https in production",
    ]);
  });

  it("makes the Worker answer 503 service_misconfigured naming the setting, never its value", async () => {
    const misconfigured = { ...env, TSA_QUALIFIED_CERTS_PEM: "-----BEGIN CERTIFICATE-----secret-ish" } as Env;
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request("http://localhost:8787/health"), misconfigured, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(503);
    expect(response.headers.get("Content-Type")).toBe("application/problem+json");
    const problem = await response.json<any>();
    expect(problem.code).toBe("service_misconfigured");
    expect(problem.detail).toContain("TSA_QUALIFIED_CERTS_PEM is no longer read");
    expect(problem.detail).not.toContain("secret-ish");

    const fine = createExecutionContext();
    const healthy = await worker.fetch(new Request("http://localhost:8787/health"), env, fine);
    await waitOnExecutionContext(fine);
    expect(healthy.status).toBe(200);
    await healthy.body?.cancel();
  });
});
