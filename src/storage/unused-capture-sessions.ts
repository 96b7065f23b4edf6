import { sql } from "drizzle-orm";
import { statement } from "./statement.ts";

/**
 * Capture sessions that never became a proof, for the retention sweep. Ids travel as one JSON array
 * parameter (json_each), so a round costs the same few bound parameters whatever its size (D1 allows
 * 100 per statement).
 */
export interface UnusedSessionFile {
  originalKey: string;
  signedKey: string | null;
  multipartUploadId: string | null;
  status: "declared" | "uploaded" | "deleted";
}

export interface UnusedSessions {
  sessionIds: string[];
  templateSha256s: string[];
  files: UnusedSessionFile[];
}

/** Up to `limit` expired or rejected sessions whose link expired before `cutoff`, with their files. */
export async function findUnusedSessions(d1: D1Database, cutoff: string, limit: number): Promise<UnusedSessions> {
  const sessions = await statement(
    d1,
    sql`SELECT id, template_sha256 FROM capture_sessions
       WHERE status IN ('expired', 'rejected') AND expires_at < ${cutoff} AND proof_id IS NULL LIMIT ${limit}`,
  ).all<{ id: string; template_sha256: string }>();
  const sessionIds = sessions.results.map((row) => row.id);
  if (sessionIds.length === 0) return { sessionIds, templateSha256s: [], files: [] };
  const files = await statement(
    d1,
    sql`SELECT original_key AS originalKey, signed_key AS signedKey, multipart_upload_id AS multipartUploadId, status
       FROM files WHERE session_id IN (SELECT value FROM json_each(${JSON.stringify(sessionIds)}))`,
  ).all<UnusedSessionFile>();
  return { sessionIds, templateSha256s: [...new Set(sessions.results.map((row) => row.template_sha256))], files: files.results };
}

/**
 * Deletes the sessions' files and rows, then the template snapshots no session refers to any more, in
 * one atomic batch. A session creation reusing one of those snapshots writes it again in its own batch,
 * so it can never be left without one. Returns how many sessions were deleted.
 */
export async function deleteUnusedSessionRows(d1: D1Database, unused: UnusedSessions): Promise<number> {
  const ids = JSON.stringify(unused.sessionIds);
  const [, sessions] = await d1.batch([
    statement(d1, sql`DELETE FROM files WHERE session_id IN (SELECT value FROM json_each(${ids})) AND proof_id IS NULL`),
    statement(
      d1,
      sql`DELETE FROM capture_sessions WHERE id IN (SELECT value FROM json_each(${ids})) AND status IN ('expired', 'rejected') AND proof_id IS NULL`,
    ),
    statement(
      d1,
      sql`DELETE FROM template_snapshots WHERE sha256 IN (SELECT value FROM json_each(${JSON.stringify(unused.templateSha256s)}))
         AND NOT EXISTS (SELECT 1 FROM capture_sessions WHERE capture_sessions.template_sha256 = template_snapshots.sha256)`,
    ),
  ]);
  return sessions!.meta.changes;
}
