import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { productionConfigurationProblems, readWranglerConfig } from "./support/deploy-configuration.ts";

/** Issue 29's baseline, the bytes its npm packages took then, and what the libraries it brought added (ADR 0039). */
const BASELINE_BUNDLE_BYTES = 2_562_090;
const BASELINE_PACKAGE_BYTES = 2_152_203;
const LIBRARIES_GAINED_BYTES = 19_383;

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

// Runs in Node without the dev stack: it reads wrangler.toml as wrangler resolves it.
describe("the production environment of wrangler.toml", () => {
  const topLevel = readWranglerConfig();
  const production = readWranglerConfig("production");

  it("declares every var and binding again, https custom domains for both hosts, and no workers.dev host", () => {
    expect(productionConfigurationProblems(production, topLevel)).toEqual([]);
  });

  it("would be refused with a loopback URL, plain http, a missing var or binding, a drifted setting, or workers.dev on", () => {
    const broken = {
      ...production,
      workers_dev: true,
      vars: { ...production.vars, CAPTURE_BASE_URL: "http://127.0.0.1:8787", BUILD_COMMIT: undefined },
      r2_buckets: [],
      queues: { ...production.queues, consumers: production.queues.consumers!.slice(1) },
      containers: production.containers!.map((container) => ({ ...container, max_instances: 1 })),
    } as unknown as typeof production;
    const problems = productionConfigurationProblems(broken, topLevel);
    expect(problems).toEqual(
      expect.arrayContaining([
        "var BUILD_COMMIT is missing",
        "var CAPTURE_BASE_URL is not https: http://127.0.0.1:8787",
        "var CAPTURE_BASE_URL points at loopback: http://127.0.0.1:8787",
        "binding r2:FILES is missing",
        "binding queue_consumer:proof-sealing is missing",
        "workers_dev is not false (a second public host)",
      ]),
    );
    expect(problems.some((problem) => problem.startsWith("container SealerContainer differs"))).toBe(true);
    expect(productionConfigurationProblems({ ...production, vars: { ...production.vars, API_BASE_URL: "https://api.localhost" } }, topLevel)).toContain(
      "var API_BASE_URL points at loopback: https://api.localhost",
    );
  });

  it("builds with `wrangler deploy --dry-run --env production --containers-rollout=none` (no Docker needed)", () => {
    const outdir = mkdtempSync(join(tmpdir(), "dry-run-"));
    const wrangler = join("node_modules", "wrangler", "bin", "wrangler.js");
    const dryRun = ["deploy", "--dry-run", "--env", "production", "--containers-rollout=none", "--outdir", outdir, "--metafile", join(outdir, "meta.json")];
    const output = execFileSync(process.execPath, [wrangler, ...dryRun], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    expect(output).toContain("--dry-run: exiting now.");
    expect(output).toContain('env.CAPTURE_BASE_URL ("https://');
    const bundleBytes = statSync(join(outdir, "index.js")).size;
    const metafile: Metafile = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8"));
    const inputs = Object.entries(metafile.outputs).find(([name]) => name.endsWith("index.js"))![1].inputs;
    const packageBytes = Object.entries(inputs)
      .filter(([input]) => input.includes("node_modules/"))
      .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
    console.log(
      `production bundle: ${bundleBytes} bytes (${bundleBytes - BASELINE_BUNDLE_BYTES} over issue 29's baseline), npm packages ${packageBytes}; ${/Total Upload: .*/.exec(output)?.[0] ?? ""}`,
    );
    // Workers refuse a script over 10 MB compressed (Paid), 3 MB on Free; stay well under both.
    expect(bundleBytes).toBeLessThan(10 * 1024 * 1024);
    // The deployed script (minified, ADR 0061) weighs no more than issue 29's baseline plus the libraries it brought.
    expect(bundleBytes).toBeLessThanOrEqual(BASELINE_BUNDLE_BYTES + LIBRARIES_GAINED_BYTES);
    expect(readdirSync(outdir)).toContain("index.js.map");
    // Libraries take no more than at issue 29's baseline plus what the libraries it brought in cost.
    expect(packageBytes).toBeLessThanOrEqual(BASELINE_PACKAGE_BYTES + LIBRARIES_GAINED_BYTES);
    // zod's translated error messages stay out (wrangler.toml's alias): English is the only one answered with.
    expect(Object.keys(inputs).filter((input) => /zod\/v4\/locales\/(?!en\.js$)/.test(input))).toEqual([]);
  }, 120_000);
});
