import type { DomainContext } from "../domain/context.ts";
import { opensslFingerprint } from "../../shared/trust-anchors.ts";
import { listTrustAnchors } from "../storage/trust-anchors.ts";

/**
 * Every root the service's proofs have chained to, for verifiers to pin: `current` is the one the latest
 * proof of its kind and mode was sealed under, the others are `past` (proofs sealed under them stay valid).
 */
export async function publishedRoots({ ctx }: { ctx: Pick<DomainContext, "db"> }) {
  const rows = await listTrustAnchors(ctx.db);
  const newest = new Map<string, string>();
  for (const row of rows) if (!newest.has(`${row.kind}/${row.mode}`)) newest.set(`${row.kind}/${row.mode}`, row.sha256);
  return rows.map((row) => ({
    kind: row.kind,
    mode: row.mode,
    status: newest.get(`${row.kind}/${row.mode}`) === row.sha256 ? ("current" as const) : ("past" as const),
    subject: row.subject,
    sha256: row.sha256,
    openssl_fingerprint: opensslFingerprint(row.sha256),
    first_sealed_at: row.firstSealedAt,
    last_sealed_at: row.lastSealedAt,
    pem: row.pem,
  }));
}
