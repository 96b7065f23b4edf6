import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/index.ts";
import { countQueriesPerInvocation, enforcePlatformLimits, rawBinding, SHARD_BINDING_NAMES } from "./platform-limits.ts";

for (const name of SHARD_BINDING_NAMES) await applyD1Migrations(rawBinding(env[name]), env.TEST_MIGRATIONS);
// From here on, the tests and the Worker's own handlers use bindings that refuse what production refuses,
// and each handler invocation has production's query budget.
enforcePlatformLimits(env);
countQueriesPerInvocation(worker);
