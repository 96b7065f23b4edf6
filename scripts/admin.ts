/**
 * `npm run admin -- <command>`: the operator CLI over /admin/v1 (CONTRACT.md "Operators").
 * Base URL from --base-url or API_BASE_URL (default http://localhost:8787); token from ADMIN_TOKEN or .dev.vars.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { AdminClient } from "./lib/admin-client.ts";
import { parseDevVars } from "./lib/dev-vars.ts";
import { parseRightsOption } from "./lib/rights-option.ts";

const USAGE = `Usage: npm run admin -- <command> [options]

  create-org --name NAME [--shard NN]
             (no --shard: the open shard with the fewest organizations; NN one of OPEN_SHARDS)
  create-key --org ORG_ID --mode test|live [--rights a,b] [--name NAME] [--rate-limit 60]
             (no --rights: all five rights; --rights "": none)
  revoke-key KEY_ID
  balance --org ORG_ID --amount N --reason TEXT
  add-write-shard ORG_ID --shard NN
             (its new sessions go to NN, one of OPEN_SHARDS, within 10 s; the rest stays home)
  help

Options: --base-url URL (default $API_BASE_URL or http://localhost:8787); token from $ADMIN_TOKEN or .dev.vars`;

function adminToken(): string {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const devVars = resolve(import.meta.dirname, "../.dev.vars");
  const token = existsSync(devVars) ? parseDevVars(readFileSync(devVars, "utf8")).ADMIN_TOKEN : undefined;
  if (!token) throw new Error("No admin token: set ADMIN_TOKEN or run `npm run dev` once to create .dev.vars.");
  return token;
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === "") throw new Error(`Missing --${name}.\n\n${USAGE}`);
  return value;
}

async function main(): Promise<unknown> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: "string" },
      shard: { type: "string" },
      org: { type: "string" },
      mode: { type: "string" },
      rights: { type: "string" },
      "rate-limit": { type: "string" },
      amount: { type: "string" },
      reason: { type: "string" },
      "base-url": { type: "string" },
    },
  });
  const [command, argument] = positionals;
  if (command === undefined || command === "help") return USAGE;
  const client = new AdminClient(values["base-url"] ?? process.env.API_BASE_URL ?? "http://localhost:8787", adminToken());
  switch (command) {
    case "create-org":
      return client.createOrganization(required(values.name, "name"), values.shard);
    case "create-key": {
      const mode = required(values.mode, "mode");
      if (mode !== "test" && mode !== "live") throw new Error("--mode must be test or live");
      const rights = parseRightsOption(values.rights);
      return client.createApiKey(required(values.org, "org"), {
        mode,
        ...(rights === undefined ? {} : { rights }),
        ...(values.name ? { name: values.name } : {}),
        ...(values["rate-limit"] ? { rate_limit_per_minute: Number(values["rate-limit"]) } : {}),
      });
    }
    case "revoke-key":
      await client.revokeApiKey(required(argument, "KEY_ID"));
      return { revoked: argument };
    case "balance":
      return client.adjustBalance(required(values.org, "org"), Number(required(values.amount, "amount")), required(values.reason, "reason"));
    case "add-write-shard":
      return client.addWriteShard(required(argument, "ORG_ID"), required(values.shard, "shard"));
    default:
      throw new Error(`Unknown command ${command}.\n\n${USAGE}`);
  }
}

main().then(
  (result) => console.log(typeof result === "string" ? result : JSON.stringify(result, null, 2)),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);
