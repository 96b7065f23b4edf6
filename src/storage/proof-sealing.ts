import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files, organizations, proofs } from "../db/schema/index.ts";
import type { FileRow, ProofRow } from "./rows.ts";
import { FILES_IN_RECORD } from "./proofs-read.ts";

/**
 * A proof, the files it seals (uploaded, in capture order) and, for an "after", the `manifest_sha256` of
 * its "before" (sealed, so it has one: a session may only compare to a sealed proof), which its manifest names.
 */
export async function loadProofForSealing(
  db: Database,
  proofId: string,
): Promise<{ proof: ProofRow; files: FileRow[]; compareToManifestSha256: string | null } | null> {
  const proof = await db.select().from(proofs).where(eq(proofs.id, proofId)).get();
  if (!proof) return null;
  const [proofFiles, before] = await Promise.all([
    db
      .select()
      .from(files)
      .where(and(eq(files.proofId, proofId), eq(files.status, "uploaded")))
      .orderBy(files.createdAt, files.id)
      .all(),
    proof.compareTo === null ? undefined : db.select({ manifestSha256: proofs.manifestSha256 }).from(proofs).where(eq(proofs.id, proof.compareTo)).get(),
  ]);
  return { proof, files: proofFiles, compareToManifestSha256: before?.manifestSha256 ?? null };
}

/** A proof being sealed is alive: its `updated_at` is what the stalled-sealing sweep reads as its last progress. */
export async function markSealingProgress(db: Database, proofId: string): Promise<void> {
  await db
    .update(proofs)
    .set({ updatedAt: new Date().toISOString() })
    .where(and(eq(proofs.id, proofId), eq(proofs.status, "pending")));
}

export async function countSealAttempt(db: Database, proofId: string): Promise<void> {
  await db
    .update(proofs)
    .set({ sealAttempts: sql`${proofs.sealAttempts} + 1`, updatedAt: new Date().toISOString() })
    .where(eq(proofs.id, proofId));
}

/**
 * Statements that only take effect while the proof is still `pending`, so that a job delivered twice, or
 * two consumers racing, change the proof, the balance and the event log exactly once. They must run in
 * one `db.batch`, in this order, with the proof's own update last.
 */
export function whilePending(proofId: string) {
  return sql`EXISTS (SELECT 1 FROM proofs WHERE id = ${proofId} AND status = 'pending')`;
}

/** Consumes the live reservation: one unit of balance per sealed live proof. */
export function consumeReservationStatement(db: Database, proof: ProofRow) {
  return db
    .update(organizations)
    .set({ balance: sql`${organizations.balance} - 1`, updatedAt: new Date().toISOString() })
    .where(
      and(
        eq(organizations.id, proof.organizationId),
        sql`EXISTS (SELECT 1 FROM proofs WHERE id = ${proof.id} AND status = 'pending' AND holds_reservation = 1)`,
      ),
    );
}

/**
 * The proof's file rows, deleted by the batch that seals it (docs/adr/0065): the run's record in R2, written before
 * this batch, holds the files whole, and the hash indexes in R2 find them by their bytes. Every file of the session
 * goes, those removed during the capture too: none is read once the proof is sealed. A batch that does not seal the
 * proof (another run sealed it first) deletes nothing, and a Worker dying before it leaves the pending proof's rows.
 */
export function deleteSealedFilesStatement(db: Database, proof: Pick<ProofRow, "id" | "sessionId">) {
  return db.delete(files).where(and(eq(files.sessionId, proof.sessionId), whilePending(proof.id)));
}

export function markSealedStatement(
  db: Database,
  proofId: string,
  sealed: {
    run: string;
    /** The SHA-256 of the record this run wrote (storeSealedRecord). */
    recordSha256: string;
    manifestSha256: string;
    sealCertificate: { sha256: string; subject: string };
    genTime: string;
    qualified: boolean;
    authority: string;
    serial: string;
    policy: string;
    sealedAt: string;
  },
) {
  return db
    .update(proofs)
    .set({
      status: "sealed",
      sealingRun: sealed.run,
      sealedRecord: FILES_IN_RECORD,
      sealedRecordSha256: sealed.recordSha256,
      holdsReservation: 0,
      manifestSha256: sealed.manifestSha256,
      sealCertificateSha256: sealed.sealCertificate.sha256,
      sealCertificateSubject: sealed.sealCertificate.subject,
      timestampGenTime: sealed.genTime,
      timestampQualified: sealed.qualified,
      timestampAuthority: sealed.authority,
      timestampSerial: sealed.serial,
      timestampPolicy: sealed.policy,
      sealedAt: sealed.sealedAt,
      updatedAt: sealed.sealedAt,
    })
    .where(and(eq(proofs.id, proofId), eq(proofs.status, "pending")));
}

/** A failed proof releases its live reservation without billing. */
export function markFailedStatement(db: Database, proofId: string, failure: { code: string; message: string; failedAt: string }) {
  return db
    .update(proofs)
    .set({
      status: "failed",
      holdsReservation: 0,
      failureCode: failure.code,
      failureMessage: failure.message,
      failedAt: failure.failedAt,
      updatedAt: failure.failedAt,
    })
    .where(and(eq(proofs.id, proofId), eq(proofs.status, "pending")));
}
