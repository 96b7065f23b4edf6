import { and, eq, ne } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { files } from "../db/schema/index.ts";

import type { FileRow } from "./rows.ts";

export async function insertFile(db: Database, row: typeof files.$inferInsert): Promise<void> {
  await db.insert(files).values(row);
}

/** Files of a session still part of the capture (deleted ones excluded), in the order they were declared. */
export async function liveFilesOfSession(db: Database, sessionId: string): Promise<FileRow[]> {
  return db
    .select()
    .from(files)
    .where(and(eq(files.sessionId, sessionId), ne(files.status, "deleted")))
    .orderBy(files.createdAt, files.id)
    .all();
}

export async function findSessionFile(db: Database, sessionId: string, fileId: string): Promise<FileRow | null> {
  const row = await db
    .select()
    .from(files)
    .where(and(eq(files.id, fileId), eq(files.sessionId, sessionId), ne(files.status, "deleted")))
    .get();
  return row ?? null;
}

/** Records that storage holds the file; `capturedAt` is when storage observed it. */
export async function markFileUploaded(db: Database, fileId: string, capturedAt: string): Promise<void> {
  await db
    .update(files)
    .set({ status: "uploaded", capturedAt })
    .where(and(eq(files.id, fileId), eq(files.status, "declared")));
}

/** The state of a capture file by id alone (the storage route knows the file from its signed URL only). */
export async function fileStatus(db: Database, fileId: string): Promise<FileRow["status"] | null> {
  const row = await db.select({ status: files.status }).from(files).where(eq(files.id, fileId)).get();
  return row?.status ?? null;
}

export async function markFileDeleted(db: Database, fileId: string): Promise<void> {
  await db.update(files).set({ status: "deleted" }).where(eq(files.id, fileId));
}

/** Records one stored part (the local storage route), so a resumed upload knows where to start. */
export async function recordPart(db: Database, fileId: string, part: { part_number: number; etag: string }): Promise<void> {
  const row = await db.select({ parts: files.uploadedParts }).from(files).where(eq(files.id, fileId)).get();
  const parts = (row?.parts ?? []).filter((existing) => existing.part_number !== part.part_number);
  await db
    .update(files)
    .set({ uploadedParts: [...parts, part] })
    .where(eq(files.id, fileId));
}

/** Forgets the parts recorded for a multipart upload: the phone sends them all again. */
export async function forgetUploadedParts(db: Database, fileId: string): Promise<void> {
  await db.update(files).set({ uploadedParts: null }).where(eq(files.id, fileId));
}
