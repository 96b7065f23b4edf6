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

/**
 * The sealed objects whose latest re-hash (src/sweeps/rehash-sealed-objects.ts) found another hash or no
 * object, latest detected first: what the `sealed_object_altered` alert points the operator to. An object
 * restored to its sealed bytes leaves the list at its next re-hash.
 */
export async function listAlteredObjects({ ctx, input }: { ctx: { d1: D1Database; cursorSecret: string }; input: { limit: number; cursor?: string } }) {
  const scope = { secret: ctx.cursorSecret, list: "altered-objects" };
  const after = await readCursor(scope, input.cursor);
  const rows = await alteredObjects(ctx.d1, { limit: input.limit + 1, after: after ? { mismatchSince: after.createdAt, objectKey: after.id } : null });
  return toPage(
    scope,
    rows.map((row) => ({ ...row, createdAt: row.mismatchSince!, id: row.objectKey })),
    input.limit,
    presentAlteredObject,
  );
}
