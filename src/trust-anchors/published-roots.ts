import type { DomainContext } from "../domain/context.ts";
import type { Database } from "../db/client.ts";
import { allShardDatabases } from "../db/shards.ts";
import { opensslFingerprint } from "../../shared/trust-anchors.ts";
import { listTrustAnchors } from "../storage/trust-anchors.ts";
import { listSealCertificates } from "../storage/seal-certificates.ts";

interface SealedUnder {
  sha256: string;
  firstSealedAt: string;
  lastSealedAt: string;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The rows of every shard (docs/adr/0062: each records the roots and certificates its own proofs were sealed
 * under, in their sealing batch), one per SHA-256 with its first and last seal over all shards, ordered as one
 * database's query orders them: `groupOf` ascending, then the most recently used first.
 */
async function overEveryShard<Row extends SealedUnder>(ctx: Pick<DomainContext, "env">, list: (db: Database) => Promise<Row[]>, groupOf: (row: Row) => string) {
  const merged = new Map<string, Row>();
  for (const rows of await Promise.all(allShardDatabases(ctx.env).map(({ db }) => list(db)))) {
    for (const row of rows) {
      const seen = merged.get(row.sha256);
      merged.set(
        row.sha256,
        seen === undefined
          ? row
          : {
              ...seen,
              firstSealedAt: byText(row.firstSealedAt, seen.firstSealedAt) < 0 ? row.firstSealedAt : seen.firstSealedAt,
              lastSealedAt: byText(row.lastSealedAt, seen.lastSealedAt) > 0 ? row.lastSealedAt : seen.lastSealedAt,
            },
      );
    }
  }
  return [...merged.values()].sort((a, b) => byText(groupOf(a), groupOf(b)) || byText(b.lastSealedAt, a.lastSealedAt));
}

/**
 * Every root the service's proofs have chained to, for verifiers to pin: `current` is the one the latest
 * proof of its kind and mode was sealed under, the others are `past` (proofs sealed under them stay valid).
 */
export async function publishedRoots({ ctx }: { ctx: Pick<DomainContext, "env"> }) {
  const rows = await overEveryShard(ctx, listTrustAnchors, (row) => `${row.kind}/${row.mode}`);
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

/**
 * Every certificate proofs were sealed with (manifest.p7s, docs/adr/0027), issued under the service root of
 * its mode (kind `c2pa` above): `current` is the one the latest proof of its mode was sealed with. A new one
 * (a rotation) appears here with the date of its first seal; proofs sealed with a `past` one stay valid,
 * since a seal is judged at its timestamp's gen_time.
 */
export async function publishedSealCertificates({ ctx }: { ctx: Pick<DomainContext, "env"> }) {
  const rows = await overEveryShard(ctx, listSealCertificates, (row) => row.mode);
  const newest = new Map<string, string>();
  for (const row of rows) if (!newest.has(row.mode)) newest.set(row.mode, row.sha256);
  return rows.map((row) => ({
    mode: row.mode,
    status: newest.get(row.mode) === row.sha256 ? ("current" as const) : ("past" as const),
    subject: row.subject,
    issuer: row.issuer,
    serial: row.serial,
    sha256: row.sha256,
    openssl_fingerprint: opensslFingerprint(row.sha256),
    not_before: row.notBefore,
    not_after: row.notAfter,
    first_sealed_at: row.firstSealedAt,
    last_sealed_at: row.lastSealedAt,
    pem: row.pem,
  }));
}
