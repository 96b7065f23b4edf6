/**
 * `npm run dev`: the whole service on this machine — D1 migrations applied locally, the sealer as a Node
 * process, `wrangler dev` (local D1, R2, Durable Objects, Queues, cron), a seeded demo organization.
 * Environment: PORT (default 8787), PERSIST_DIR (default .wrangler/state), DEV_LOCAL_DIR (default .local),
 * WEBHOOK_RESOLVE, WEBHOOK_RETRY_SCALE and WEBHOOK_DNS_RESOLVER_URL (local webhook receivers, see README), EVIDENCE_FIRST_STAMP_WITHIN_MINUTES
 * and EVIDENCE_HASH_ALGORITHM (evidence records, docs/adr/0022), DEV_SWEEP_INTERVAL_SECONDS
 * (how often the cron sweeps run, default 60 as in production). The sealer is restarted when it dies alone
 * (its log says `[sealer] started (pid N)` each time); any other child dying stops everything.
 */
import { execSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SEALER_NODE_FLAGS } from "../sealer/src/node-flags.ts";
import { AdminClient } from "./lib/admin-client.ts";
import { Children, run } from "./lib/children.ts";
import { ensureDemoOrganization } from "./lib/demo-organization.ts";
import { ensureDevVars } from "./lib/dev-vars.ts";
import { freePort, waitForHttp } from "./lib/ports.ts";
import { triggerSweeps } from "./lib/sweep-timer.ts";

const root = resolve(import.meta.dirname, "..");
const port = Number(process.env.PORT ?? 8787);
const persistDir = resolve(root, process.env.PERSIST_DIR ?? ".wrangler/state");
const localDir = resolve(root, process.env.DEV_LOCAL_DIR ?? ".local");
const pkiDir = join(localDir, "pki");
const apiBaseUrl = `http://localhost:${port}`;
const captureBaseUrl = `http://127.0.0.1:${port}`;
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const sweepIntervalSeconds = Number(process.env.DEV_SWEEP_INTERVAL_SECONDS ?? 60);
/** The schedule of wrangler.toml's [triggers]; the handler runs every sweep whatever the cron. */
const CRON = "* * * * *";
const children = new Children();

function gitCommit(): string {
  try {
    return execSync("git rev-parse HEAD", { cwd: root, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "unknown";
  }
}

/** The `binding` of each top-level `[[d1_databases]]` of wrangler.toml (the production environment's are its own). */
function localD1Bindings(): string[] {
  const topLevel = readFileSync(join(root, "wrangler.toml"), "utf8").split(/^\[env\./m)[0] ?? "";
  return [...topLevel.matchAll(/^\[\[d1_databases\]\]\s*\nbinding = "([A-Z0-9_]+)"/gm)].map((match) => match[1]!);
}

async function main() {
  if (!(sweepIntervalSeconds > 0)) throw new Error("DEV_SWEEP_INTERVAL_SECONDS must be a positive number of seconds");
  mkdirSync(localDir, { recursive: true });
  const secrets = ensureDevVars(join(root, ".dev.vars.example"), join(root, ".dev.vars"));

  const pkiScript = join(root, "sealer/src/pki/ensure-local-pki.ts");
  if (existsSync(pkiScript)) await run("pki", process.execPath, [pkiScript, pkiDir], { cwd: root });

  // Every shard (docs/adr/0062): the D1 bindings wrangler.toml declares for local development.
  for (const binding of localD1Bindings()) {
    console.log(`Applying D1 migrations locally to ${binding}…`);
    await run("migrations", wrangler, ["d1", "migrations", "apply", binding, "--local", "--persist-to", persistDir], {
      cwd: root,
      env: { ...process.env, CI: "true" },
    });
  }

  const vars: Record<string, string> = {
    API_BASE_URL: apiBaseUrl,
    CAPTURE_BASE_URL: captureBaseUrl,
    BUILD_COMMIT: gitCommit(),
  };
  for (const name of ["WEBHOOK_RESOLVE", "WEBHOOK_RETRY_SCALE", "WEBHOOK_DNS_RESOLVER_URL", "EVIDENCE_FIRST_STAMP_WITHIN_MINUTES", "EVIDENCE_HASH_ALGORITHM"])
    if (process.env[name]) vars[name] = process.env[name]!;

  const sealerMain = join(root, "sealer/src/main.ts");
  if (existsSync(sealerMain)) {
    const sealerPort = await freePort();
    // With the V8 options the container starts it with (sealer/src/node-flags.ts). Restarted on the same port
    // when it dies alone, as the platform restarts a Container: the Worker and its queues carry on (ADR 0050).
    const sealer = children.start("sealer", process.execPath, [...SEALER_NODE_FLAGS, sealerMain], {
      cwd: root,
      env: { ...process.env, SEALER_PORT: String(sealerPort), SEALER_SECRET: secrets.SEALER_SECRET ?? "", PKI_DIR: pkiDir },
      restart: true,
    });
    vars.SEALER_URL = `http://127.0.0.1:${sealerPort}`;
    await waitForHttp(`${vars.SEALER_URL}/health`, 60_000, () => children.isAlive(sealer));
  }

  const inspectorPort = await freePort();
  const worker = children.start(
    "wrangler",
    wrangler,
    [
      "dev",
      "--enable-containers=false",
      // The script production runs is minified (ADR 0061): develop and test that one.
      "--minify",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      persistDir,
      "--show-interactive-dev-session=false",
      // Serves GET /__scheduled, which the sweep timer below calls (wrangler dev has no cron of its own).
      "--test-scheduled",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    // Wrangler's experimental local trace recorder writes every Worker, Durable Object and D1 call to a SQLite
    // database on disk, which production does not do and which doubled an API call's CPU (docs/adr/0026).
    // X_LOCAL_OBSERVABILITY=true turns it back on for the local explorer's traces.
    { cwd: root, env: { ...process.env, CI: "true", X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY || "false" } },
  );
  await waitForHttp(`${apiBaseUrl}/health`, 120_000, () => children.isAlive(worker));
  triggerSweeps(apiBaseUrl, sweepIntervalSeconds, CRON);

  const admin = new AdminClient(apiBaseUrl, secrets.ADMIN_TOKEN ?? "");
  const demoFile = join(localDir, `demo-${createHash("sha256").update(persistDir).digest("hex").slice(0, 12)}.json`);
  const demo = await ensureDemoOrganization(admin, demoFile);

  console.log(`
  Proof-sealing service running
  ─────────────────────────────
  API (base_url)         ${apiBaseUrl}        (docs: ${apiBaseUrl}/docs)
  Capture host           ${captureBaseUrl}
  Demo organization      ${demo.organizationId}
  Test key               ${demo.testKey}
  Live key               ${demo.liveKey}   (balance seeded with 100 proofs)
  Admin token            ${secrets.ADMIN_TOKEN}
  Supervision token      ${secrets.SUPERVISION_TOKEN}
  Sealer                 ${vars.SEALER_URL ?? "not started"}
  Cron sweeps            every ${sweepIntervalSeconds} s (${apiBaseUrl}/__scheduled)
`);
  console.log(
    `DEV_STACK_READY ${JSON.stringify({
      baseUrl: apiBaseUrl,
      captureBaseUrl,
      testKey: demo.testKey,
      liveKey: demo.liveKey,
      adminToken: secrets.ADMIN_TOKEN,
      supervisionToken: secrets.SUPERVISION_TOKEN,
      organizationId: demo.organizationId,
      sealerUrl: vars.SEALER_URL ?? null,
    })}`,
  );
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => children.stopAll(0));
// When whatever started us dies without a signal reaching us (e.g. a killed `npm` wrapper), stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) children.stopAll(0);
}, 2000).unref();
main().catch((error: Error) => {
  console.error(error.message);
  children.stopAll(1);
});
