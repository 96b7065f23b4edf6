import type { DomainContext } from "../domain/context.ts";
import { opensslFingerprint } from "../../shared/trust-anchors.ts";
import { listTrustAnchors } from "../storage/trust-anchors.ts";
import { listSealCertificates } from "../storage/seal-certificates.ts";

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

/**
 * Every certificate proofs were sealed with (manifest.p7s, docs/adr/0027), issued under the service root of
 * its mode (kind `c2pa` above): `current` is the one the latest proof of its mode was sealed with. A new one
 * (a rotation) appears here with the date of its first seal; proofs sealed with a `past` one stay valid,
 * since a seal is judged at its timestamp's gen_time.
 */
export async function publishedSealCertificates({ ctx }: { ctx: Pick<DomainContext, "db"> }) {
  const rows = await listSealCertificates(ctx.db);
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
