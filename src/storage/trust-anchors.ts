import { asc, desc, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { trustAnchors } from "../db/schema/index.ts";
import type { RootFingerprint } from "../../shared/trust-anchors.ts";

export type TrustAnchorRow = typeof trustAnchors.$inferSelect;

/** Records the roots a proof was sealed under (first time seen, or seen again): one statement per root, for the sealing batch. */
export function trustAnchorUpserts(
  db: Database,
  roots: { kind: TrustAnchorRow["kind"]; root: RootFingerprint }[],
  mode: TrustAnchorRow["mode"],
  sealedAt: string,
) {
  return roots.map(({ kind, root }) =>
    db
      .insert(trustAnchors)
      .values({ sha256: root.sha256, kind, mode, subject: root.subject, pem: root.pem, firstSealedAt: sealedAt, lastSealedAt: sealedAt })
      .onConflictDoUpdate({ target: trustAnchors.sha256, set: { lastSealedAt: sql`max(${trustAnchors.lastSealedAt}, excluded.last_sealed_at)` } }),
  );
}

/** Every root ever recorded, the most recently used first within each kind and mode (a handful of rows). */
export function listTrustAnchors(db: Database): Promise<TrustAnchorRow[]> {
  return db.select().from(trustAnchors).orderBy(asc(trustAnchors.kind), asc(trustAnchors.mode), desc(trustAnchors.lastSealedAt)).all();
}
