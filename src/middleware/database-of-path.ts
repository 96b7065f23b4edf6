import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { FIRST_SHARD, type ShardCode, shardBinding, shardDatabase, shardOfId } from "../db/shards.ts";
import type { HonoEnv } from "../env.ts";
import { shardOfCaptureToken } from "../capture-sessions/capture-token.ts";

/**
 * Sets the request's database (`c.var.db`) to the shard that the path's `param` names (docs/adr/0062): routes
 * without an API key (public proofs, `/p/{id}`, `/c/{token}`) find their data by the id or token alone. A code
 * this deployment has no shard for was never minted here: the request is answered from shard `00`, which holds
 * no such id or token, so it gets exactly the answer of any unknown one (a 404 problem, the page's not-found),
 * whatever the route makes of it, and never a 5xx.
 */
function databaseNamedBy(param: string, shardOf: (value: string) => ShardCode) {
  return createMiddleware<HonoEnv>(async (c, next) => {
    const binding = shardBinding(c.env, shardOf(c.req.param(param) ?? ""));
    c.set("db", binding === undefined ? shardDatabase(c.env, FIRST_SHARD) : database(binding));
    await next();
  });
}

/** For `/v1/public/proofs/{id}/…` and `/p/{id}`: the proof id's shard. */
export const databaseOfProofInPath = databaseNamedBy("id", shardOfId);

/** For `/c/{token}/…`: the capture token's shard. */
export const databaseOfCaptureTokenInPath = databaseNamedBy("token", shardOfCaptureToken);
