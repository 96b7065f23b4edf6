import { z } from "zod";
import { FIRST_SHARD, openShardCodes, shardBindingName, shardCodes } from "../db/shards.ts";

/**
 * The Worker's secrets and variables as text, validated once per isolate (src/startup-check.ts). Bindings
 * and the variables of wrangler.toml are typed by worker-configuration.d.ts (`npm run types`); this schema
 * types the secrets, which wrangler cannot know, and says what a well-formed value of every setting is.
 * What production alone requires (its secrets, https) is checked in src/startup-check.ts.
 */

/** Each problem reads "NAME …": the setting is the issue's path. */
const text = (message: string) => z.string({ error: (issue) => (issue.input === undefined ? "is not set" : message) });

/** An optional setting left empty (`NAME=` in .dev.vars) is as unset as a missing one, as the code reading it treats it. */
const optional = <T extends z.ZodType<string>>(schema: T) => z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

const httpUrl = text("is not an http(s) URL").refine(
  (value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol),
  "is not an http(s) URL",
);

const positiveNumber = text("is not a positive number").refine((value) => Number(value) > 0, "is not a positive number");

const positiveInteger = text("is not a positive whole number").regex(/^[1-9][0-9]*$/, "is not a positive whole number");

/** An AES-256 key: 32 bytes in standard base64 (scripts/lib/dev-vars.ts makes one). */
const aes256Key = text("is not 32 bytes in base64").refine((value) => {
  try {
    return /^[A-Za-z0-9+/]+={0,2}$/.test(value) && atob(value).length === 32;
  } catch {
    return false;
  }
}, "is not 32 bytes in base64 (e.g. `openssl rand -base64 32`)");

/** `host:port=127.0.0.1:port` pairs, comma-separated (local development only). */
const resolveRules = text("is not a list of host:port=127.0.0.1:port").regex(
  /^[^,=\s]+=[^,=\s]+(,[^,=\s]+=[^,=\s]+)*$/,
  "is not a list of host:port=127.0.0.1:port",
);

/** Shard codes (src/db/shards.ts): two characters of 0-9 a-z each, comma-separated. */
const SHARD_LIST_PROBLEM = "is not a list of shard codes (two characters of 0-9 a-z each, comma-separated)";
const shardList = text(SHARD_LIST_PROBLEM).regex(/^ *[0-9a-z]{2} *(, *[0-9a-z]{2} *)*$/, SHARD_LIST_PROBLEM);

export const SettingsSchema = z.object({
  API_BASE_URL: httpUrl,
  CAPTURE_BASE_URL: httpUrl,
  BUILD_COMMIT: text("is not text"),
  /** Operator API bearer token (secret). */
  ADMIN_TOKEN: optional(text("is not text")),
  /** Bearer token for GET /health/details (secret, not an API key). */
  SUPERVISION_TOKEN: optional(text("is not text")),
  /** URL of the sealer service (local development); production uses the container binding. */
  SEALER_URL: optional(httpUrl),
  /** Bearer token the Worker sends to the sealer (secret shared by both). */
  SEALER_SECRET: optional(text("is not text")),
  /** HMAC key of locally signed upload/download URLs (when no R2 S3 credentials are configured). */
  UPLOAD_URL_SIGNING_KEY: optional(text("is not text")),
  /** R2 S3-API credentials (production): uploads go straight to storage through presigned URLs. */
  R2_ACCESS_KEY_ID: optional(text("is not text")),
  R2_SECRET_ACCESS_KEY: optional(text("is not text")),
  R2_S3_ENDPOINT: optional(httpUrl),
  R2_BUCKET_NAME: optional(text("is not text")),
  /** AES-GCM key encrypting webhook signing secrets at rest: needed everywhere, since endpoints exist everywhere. */
  WEBHOOK_SECRET_KEY: aes256Key,
  /** Local development only: `host:port=127.0.0.1:port,…` sends those deliveries over HTTP to loopback. */
  WEBHOOK_RESOLVE: optional(resolveRules),
  /** Local development only: divides the retry delays, so tests can watch retries happen. */
  WEBHOOK_RETRY_SCALE: optional(positiveNumber),
  /** DNS-over-HTTPS JSON resolver asked before each delivery (default Cloudflare's): non-public answers are refused. */
  WEBHOOK_DNS_RESOLVER_URL: optional(httpUrl),
  /** The sealer's configuration, passed to its container (sealer/README.md); its chains are files of its image. */
  C2PA_SIGNING_KEY_PEM: optional(text("is not text")),
  /** Test proofs' own C2PA key: its certificate says it is a test, under a root of its own (docs/adr/0018). */
  C2PA_TEST_SIGNING_KEY_PEM: optional(text("is not text")),
  /** The proof seal's key (manifest.p7s), live and test, each under its mode's C2PA root (docs/adr/0027). */
  PROOF_SEAL_KEY_PEM: optional(text("is not text")),
  PROOF_SEAL_TEST_KEY_PEM: optional(text("is not text")),
  TSA_URL: optional(httpUrl),
  TSA_NAME: optional(text("is not text")),
  /** The authority of each file's C2PA signature timestamp, so the qualified TSA_URL is paid once per proof (docs/adr/0020). */
  TSA_SIGNATURE_URL: optional(httpUrl),
  TSA_SIGNATURE_NAME: optional(text("is not text")),
  SEALER_MEMORY_BUDGET_MB: optional(positiveInteger),
  /** Evidence records (docs/adr/0022): a sealed proof gets its first archive timestamp within this many minutes (default 60; 0: the next sweep). */
  EVIDENCE_FIRST_STAMP_WITHIN_MINUTES: optional(text("is not a whole number").regex(/^(0|[1-9][0-9]*)$/, "is not a whole number")),
  /** A timestamp renewal is due this many days before the latest archive timestamp's authority certificate expires (default 180). */
  EVIDENCE_RENEWAL_MARGIN_DAYS: optional(positiveInteger),
  /** The digest algorithm of new archive timestamps (default SHA-256); changing it makes every record due for a hash-tree renewal. */
  EVIDENCE_HASH_ALGORITHM: optional(z.enum(["SHA-256", "SHA-384", "SHA-512"], { error: "is not SHA-256, SHA-384 or SHA-512" })),
  /** The D1 shards that exist (docs/adr/0062; default `00`, the binding `DB` alone); each needs its binding. */
  SHARDS: optional(shardList),
  /** The shards new organizations are placed on (default all of SHARDS); a shard closes at 70 % of its size. */
  OPEN_SHARDS: optional(shardList),
});

/** The settings' types; wrangler.toml's variables are also in worker-configuration.d.ts, with the same type. */
export type Settings = z.infer<typeof SettingsSchema>;

/** Every missing or malformed setting, each as "NAME problem" (the name only, never the value). */
export function settingsProblems(env: object): string[] {
  const parsed = SettingsSchema.safeParse(env);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
}

function repeated(codes: string[]): string[] {
  return [...new Set(codes.filter((code, index) => codes.indexOf(code) !== index))];
}

/**
 * What well-formed SHARDS and OPEN_SHARDS (settingsProblems says when they are not) still get wrong: a code
 * named twice, a shard without its D1 binding (`DB` for 00, `DB_NN` otherwise), an open shard that is not
 * one of SHARDS, or an OPEN_SHARDS set empty (read as "every shard", the opposite of what it looks like).
 */
export function shardProblems(env: object): string[] {
  const settings = env as Record<string, unknown>;
  const lists = SettingsSchema.pick({ SHARDS: true, OPEN_SHARDS: true }).safeParse(env);
  if (!lists.success) return [];
  // Unset reads as empty here, as src/db/shards.ts reads it: `00` alone, and every shard open.
  const given = { SHARDS: lists.data.SHARDS ?? "", OPEN_SHARDS: lists.data.OPEN_SHARDS ?? "" };
  const shards = shardCodes(given);
  const open = openShardCodes(given);
  const problems: string[] = [];
  for (const code of repeated(shards)) problems.push(`SHARDS names shard ${code} twice`);
  // Every id, key and token minted before shards names 00, and unknown codes are answered from it: it never leaves.
  if (!shards.includes(FIRST_SHARD)) problems.push(`SHARDS must name ${FIRST_SHARD} (the binding DB, where everything made before shards lives)`);
  for (const code of new Set(shards)) {
    const binding = settings[shardBindingName(code)];
    if (typeof binding !== "object" || binding === null) problems.push(`SHARDS names shard ${code}, whose D1 binding ${shardBindingName(code)} is not bound`);
  }
  if (typeof settings.OPEN_SHARDS === "string" && settings.OPEN_SHARDS.trim() === "") {
    problems.push("OPEN_SHARDS is empty: name at least one shard, or leave it unset for all of SHARDS");
  }
  for (const code of repeated(open)) problems.push(`OPEN_SHARDS names shard ${code} twice`);
  for (const code of new Set(open)) if (!shards.includes(code)) problems.push(`OPEN_SHARDS names shard ${code}, which is not in SHARDS`);
  return problems;
}
