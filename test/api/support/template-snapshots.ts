import { env } from "cloudflare:workers";
import { sha256Hex } from "../../../src/lib/crypto.ts";

/** The template snapshot JSON a session was created with (stored once per content, migration 0011). */
export async function sessionSnapshot(sessionId: string): Promise<string> {
  const row = await env.DB.prepare("SELECT content FROM template_snapshots WHERE sha256 = (SELECT template_sha256 FROM capture_sessions WHERE id = ?)")
    .bind(sessionId)
    .first<{ content: string }>();
  if (row === null) throw new Error(`no template snapshot for ${sessionId}`);
  return row.content;
}

/** Points a session at another snapshot JSON, stored under its own SHA-256 as the service stores them. */
export async function setSessionSnapshot(sessionId: string, json: string): Promise<string> {
  const sha256 = await sha256Hex(json);
  await env.DB.batch([
    env.DB.prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)").bind(sha256, json, new Date().toISOString()),
    env.DB.prepare("UPDATE capture_sessions SET template_sha256 = ? WHERE id = ?").bind(sha256, sessionId),
  ]);
  return sha256;
}
