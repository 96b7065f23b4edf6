import { execSync } from "node:child_process";
import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

function gitCommit(): string {
  try {
    return execSync("git rev-parse HEAD", { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "unknown";
  }
}

export default defineConfig(async () => ({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations("migrations"),
          BUILD_COMMIT: gitCommit(),
          ADMIN_TOKEN: "test-admin-token-0123456789abcdef",
          SUPERVISION_TOKEN: "test-supervision-token-0123456789",
          UPLOAD_URL_SIGNING_KEY: "test-upload-url-signing-key-0123456789",
          WEBHOOK_SECRET_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
          // The three shards exist and are migrated; an organization created without naming its shard goes to
          // 00, where the tests written before shards read its rows. test/api/shards-keys.test.ts opens all three.
          OPEN_SHARDS: "00",
        },
      },
    }),
  ],
  test: {
    include: ["test/api/**/*.test.ts"],
    setupFiles: ["./test/api/support/apply-migrations.ts"],
    // Logs go straight to workerd's output: a log still in flight when a file ends
    // would otherwise fail a green run (vitest-dev/vitest#11153).
    disableConsoleIntercept: true,
    // A guard against a hang, not a speed check: on CI's 2 cores a test of many proofs took over vitest's 5 s.
    testTimeout: 30_000,
  },
}));
