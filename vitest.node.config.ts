import { defineConfig } from "vitest/config";

/** End-to-end tests: Node drives the real `npm run dev` stack over HTTP (and Chromium for the pages). */
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    // A log still in flight when a file ends would otherwise fail a green run (vitest-dev/vitest#11153).
    disableConsoleIntercept: true,
  },
});
