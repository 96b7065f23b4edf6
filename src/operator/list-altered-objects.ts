import { allShardDatabases } from "../db/shards.ts";
import type { Env } from "../env.ts";
import { readCursor, toPage } from "../lib/pagination.ts";
import { alteredObjects, type AlteredObject } from "../storage/sealed-object-checks.ts";

/** An object of a sealed proof that the re-hash sweep found altered or missing, as the operator reads it. */
export function presentAlteredObject(object: AlteredObject) {
  return {
    proof_id: object.proofId,
    organization_id: object.organizationId,
    mode: object.mode,
    key: object.objectKey,
    entry: object.entry,
    file_id: object.fileId,
    expected_sha256: object.expectedSha256,
    found_sha256: object.foundSha256,
    missing: object.foundSha256 === null,
    mismatch_since: object.mismatchSince!,
    last_checked_at: object.lastCheckedAt!,
  };
}

/** Newest mismatch first, then object key descending: the order of each shard's query, merged. */
function newestFirst(a: AlteredObject, b: AlteredObject): number {
  if (a.mismatchSince !== b.mismatchSince) return a.mismatchSince! < b.mismatchSince! ? 1 : -1;
  return a.objectKey < b.objectKey ? 1 : a.objectKey > b.objectKey ? -1 : 0;
}

/**
 * The sealed objects whose latest re-hash (src/sweeps/rehash-sealed-objects.ts) found another hash or no
 * object, latest detected first, over every shard: what the `sealed_object_altered` alert points the operator
 * to. An object restored to its sealed bytes leaves the list at its next re-hash.
 *
 * Each shard answers its first `limit + 1` rows after the cursor's position, and the page is the first
 * `limit` of them merged: the order is one total order over all shards (an object key names its proof, so
 * no two shards hold the same), so the cursor is one position and the next page starts exactly after it in
 * every shard. One query per shard an invocation (3 today, of the 1,000 allowed).
 */
export async function listAlteredObjects({ ctx, input }: { ctx: { env: Env; cursorSecret: string }; input: { limit: number; cursor?: string } }) {
  const scope = { secret: ctx.cursorSecret, list: "altered-objects" };
  const after = await readCursor(scope, input.cursor);
  const position = after ? { mismatchSince: after.createdAt, objectKey: after.id } : null;
  const perShard = await Promise.all(allShardDatabases(ctx.env).map(({ db }) => alteredObjects(db.$client, { limit: input.limit + 1, after: position })));
  const merged = perShard
    .flat()
    .sort(newestFirst)
    .slice(0, input.limit + 1);
  return toPage(
    scope,
    merged.map((row) => ({ ...row, createdAt: row.mismatchSince!, id: row.objectKey })),
    input.limit,
    presentAlteredObject,
  );
}
