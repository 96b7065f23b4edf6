import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index.ts";
import type { Env } from "../../src/env.ts";
import { settingsProblems } from "../../src/config/env.ts";
import { configurationProblems } from "../../src/startup-check.ts";

/** The local configuration with some settings changed (undefined removes one). */
function local(changes: Record<string, string | undefined>): Env {
  const changed: Record<string, unknown> = { ...env, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete changed[name];
  return changed as unknown as Env;
}

describe("the settings' validation (src/config/env.ts)", () => {
  it("accepts the local configuration, and an optional setting left empty as unset", () => {
    expect(settingsProblems(env)).toEqual([]);
    expect(settingsProblems(local({ SEALER_URL: "", WEBHOOK_RETRY_SCALE: "" }))).toEqual([]);
  });

  it("names every missing or malformed setting at once, never its value", () => {
    const problems = configurationProblems(
      local({
        WEBHOOK_SECRET_KEY: "not-a-key",
        API_BASE_URL: "api.example",
        SEALER_URL: "ftp://sealer.example",
        WEBHOOK_RETRY_SCALE: "fast",
        SEALER_MEMORY_BUDGET_MB: "1.5GB",
        WEBHOOK_RESOLVE: "hooks.example",
      }),
    );
    expect(problems).toEqual([
      "API_BASE_URL is not an http(s) URL",
      "SEALER_URL is not an http(s) URL",
      "WEBHOOK_SECRET_KEY is not 32 bytes in base64 (e.g. `openssl rand -base64 32`)",
      "WEBHOOK_RESOLVE is not a list of host:port=127.0.0.1:port",
      "WEBHOOK_RETRY_SCALE is not a positive number",
      "SEALER_MEMORY_BUDGET_MB is not a positive whole number",
    ]);
    expect(problems.join(" ")).not.toContain("not-a-key");
  });

  it("requires WEBHOOK_SECRET_KEY in every environment, local development included", () => {
    expect(configurationProblems(local({ WEBHOOK_SECRET_KEY: undefined }))).toEqual(["WEBHOOK_SECRET_KEY is not set"]);
    // 24 bytes is a valid AES key length, but not the AES-256 the secrets are sealed with.
    expect(settingsProblems(local({ WEBHOOK_SECRET_KEY: btoa("x".repeat(24)) }))).toHaveLength(1);
  });

  it("refuses the first request when WEBHOOK_SECRET_KEY is missing, naming it, with one log line", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request("http://localhost:8787/health"), local({ WEBHOOK_SECRET_KEY: undefined }), ctx);
      await waitOnExecutionContext(ctx);
      expect(response.status).toBe(503);
      const problem = await response.json<{ code: string; detail: string }>();
      expect(problem.code).toBe("service_misconfigured");
      expect(problem.detail).toBe("WEBHOOK_SECRET_KEY is not set");
      expect(logged).toHaveBeenCalledTimes(1);
      expect(JSON.parse(String(logged.mock.calls[0]?.[0]))).toMatchObject({
        level: "error",
        message: "configuration",
        problems: ["WEBHOOK_SECRET_KEY is not set"],
      });
    } finally {
      logged.mockRestore();
    }
  });

  it("validates SHARDS and OPEN_SHARDS: two-character codes, each once, each bound, open ones a non-empty subset", () => {
    expect(configurationProblems(local({ SHARDS: "00,01,02", OPEN_SHARDS: "01, 02" }))).toEqual([]);
    expect(configurationProblems(local({ SHARDS: undefined, OPEN_SHARDS: undefined }))).toEqual([]);
    const malformed = "is not a list of shard codes (two characters of 0-9 a-z each, comma-separated)";
    for (const value of ["0", "001", "0A", "00,,01", "00;01", ","]) {
      expect(configurationProblems(local({ SHARDS: value }))).toEqual([`SHARDS ${malformed}`]);
      expect(configurationProblems(local({ OPEN_SHARDS: value }))).toEqual([`OPEN_SHARDS ${malformed}`]);
    }
    expect(configurationProblems(local({ SHARDS: "00,01,01,02", OPEN_SHARDS: "02,02" }))).toEqual([
      "SHARDS names shard 01 twice",
      "OPEN_SHARDS names shard 02 twice",
    ]);
    expect(configurationProblems(local({ SHARDS: "00,01,02,03", DB_01: undefined }))).toEqual([
      "SHARDS names shard 01, whose D1 binding DB_01 is not bound",
      "SHARDS names shard 03, whose D1 binding DB_03 is not bound",
    ]);
    expect(configurationProblems(local({ DB: undefined }))).toEqual(["SHARDS names shard 00, whose D1 binding DB is not bound"]);
    expect(configurationProblems(local({ SHARDS: "01,02", OPEN_SHARDS: "01,02" }))).toEqual([
      "SHARDS must name 00 (the binding DB, where everything made before shards lives)",
    ]);
    expect(configurationProblems(local({ SHARDS: "00,01", OPEN_SHARDS: "01,02" }))).toEqual(["OPEN_SHARDS names shard 02, which is not in SHARDS"]);
    expect(configurationProblems(local({ OPEN_SHARDS: "" }))).toEqual(["OPEN_SHARDS is empty: name at least one shard, or leave it unset for all of SHARDS"]);
  });
});
