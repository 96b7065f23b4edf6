import type { Env } from "./env.ts";
import { boundedCache } from "../shared/bounded-cache.ts";
import { isLoopbackHost } from "./lib/host-names.ts";
import { problemBody } from "./errors/problem.ts";
import { settingsProblems, shardProblems } from "./config/env.ts";

/** Workers refuse a secret or variable over 5 KB; `.dev.vars` does not, so the check says it first. */
export const MAX_SETTING_BYTES = 5 * 1024;

/** Variables that once carried certificate chains: the sealer now reads those from files of its image. */
const FORMER_CERTIFICATE_VARIABLES = ["C2PA_CERT_CHAIN_PEM", "C2PA_TRUST_ANCHOR_PEM", "TSA_CHAIN_PEM", "TSA_QUALIFIED_CERTS_PEM"] as const;

/** What production cannot run without (local development generates or does without them); WEBHOOK_SECRET_KEY is needed everywhere (src/config/env.ts). */
const PRODUCTION_SECRETS = [
  "ADMIN_TOKEN",
  "SUPERVISION_TOKEN",
  "SEALER_SECRET",
  "C2PA_SIGNING_KEY_PEM",
  "C2PA_TEST_SIGNING_KEY_PEM",
  "PROOF_SEAL_KEY_PEM",
  "PROOF_SEAL_TEST_KEY_PEM",
  "TSA_URL",
] as const;
const R2_S3_SETTINGS = ["R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY", "R2_S3_ENDPOINT", "R2_BUCKET_NAME"] as const;

const isSet = (value: unknown) => typeof value === "string" && value !== "";

/**
 * The Worker's configuration problems, each naming its setting: an oversized value, a former certificate
 * variable, a missing or malformed setting or shard list (src/config/env.ts), and in production (base URLs not on loopback) plain http, a
 * missing secret, or an incomplete set of R2 credentials. The sealer checks its own side at its start.
 */
export function configurationProblems(env: Env): string[] {
  const settings = env as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (typeof value !== "string") continue;
    const bytes = new TextEncoder().encode(value).byteLength;
    if (bytes > MAX_SETTING_BYTES) problems.push(`${name} is ${bytes} bytes, over the ${MAX_SETTING_BYTES} a Worker secret or variable can hold`);
  }
  for (const name of FORMER_CERTIFICATE_VARIABLES) {
    if (isSet(settings[name])) problems.push(`${name} is no longer read: the sealer's certificates are files of its image (sealer/certs/README.md)`);
  }
  problems.push(...settingsProblems(env), ...shardProblems(env));
  const urls = (["API_BASE_URL", "CAPTURE_BASE_URL"] as const).map((name) => ({ name, url: URL.canParse(env[name] ?? "") ? new URL(env[name]) : null }));
  const production = urls.some(({ url }) => url !== null && !isLoopbackHost(url.hostname));
  if (!production) return problems;
  for (const { name, url } of urls) {
    if (url !== null && url.protocol !== "https:") problems.push(`${name} must use https in production`);
  }
  for (const name of PRODUCTION_SECRETS) if (!isSet(settings[name])) problems.push(`${name} is not set`);
  const r2 = R2_S3_SETTINGS.filter((name) => isSet(settings[name]));
  if (r2.length > 0 && r2.length < R2_S3_SETTINGS.length) {
    for (const name of R2_S3_SETTINGS) if (!r2.includes(name)) problems.push(`${name} is not set (the other R2 S3 settings are)`);
  }
  if (r2.length === 0 && !isSet(env.UPLOAD_URL_SIGNING_KEY)) problems.push(`UPLOAD_URL_SIGNING_KEY is not set (nor the R2 S3 settings)`);
  return problems;
}

/** An isolate has one environment (4 kept, for the tests' several), each checked for the isolate's life. */
const checked = boundedCache<object, string[]>({ maxEntries: 4 });

/** Checked once per isolate and environment: the settings do not change while it lives. */
export function startupProblems(env: Env): string[] {
  return checked.getOrSet(env, () => {
    const problems = configurationProblems(env);
    if (problems.length > 0) console.error(JSON.stringify({ level: "error", message: "configuration", problems }));
    return problems;
  });
}

/** Every request is refused while the configuration is wrong, naming what to fix (setting names, never values). */
export function misconfiguredResponse(env: Env, problems: string[]): Response {
  const baseUrl = URL.canParse(env.API_BASE_URL ?? "") ? env.API_BASE_URL : "http://localhost";
  const body = problemBody(baseUrl, "service_misconfigured", { detail: problems.join("; ") });
  return new Response(JSON.stringify(body), { status: 503, headers: { "Content-Type": "application/problem+json", "Retry-After": "300" } });
}
