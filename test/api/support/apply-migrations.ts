import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/index.ts";
import { countQueriesPerInvocation, enforcePlatformLimits, rawBinding } from "./platform-limits.ts";

await applyD1Migrations(rawBinding(env.DB), env.TEST_MIGRATIONS);
// From here on, the tests and the Worker's own handlers use bindings that refuse what production refuses,
// and each handler invocation has production's query budget.
enforcePlatformLimits(env);
countQueriesPerInvocation(worker);
