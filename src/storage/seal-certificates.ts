import { asc, desc, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { sealCertificates } from "../db/schema/index.ts";
import type { SealCertificate } from "../sealing/seal-certificate.ts";

export type SealCertificateRow = typeof sealCertificates.$inferSelect;

/** Records the certificate a proof was sealed with (first time seen, or seen again): one statement, for the sealing batch. */
export function sealCertificateUpsert(db: Database, certificate: SealCertificate, mode: SealCertificateRow["mode"], sealedAt: string) {
  return db
    .insert(sealCertificates)
    .values({
      sha256: certificate.sha256,
      mode,
      subject: certificate.subject,
      issuer: certificate.issuer,
      serial: certificate.serial,
      notBefore: certificate.notBefore,
      notAfter: certificate.notAfter,
      pem: certificate.pem,
      firstSealedAt: sealedAt,
      lastSealedAt: sealedAt,
    })
    .onConflictDoUpdate({ target: sealCertificates.sha256, set: { lastSealedAt: sql`max(${sealCertificates.lastSealedAt}, excluded.last_sealed_at)` } });
}

/** Every sealing certificate ever used, the most recently used first within each mode (a handful of rows). */
export function listSealCertificates(db: Database): Promise<SealCertificateRow[]> {
  return db.select().from(sealCertificates).orderBy(asc(sealCertificates.mode), desc(sealCertificates.lastSealedAt)).all();
}
