import type { Database } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { findSessionByTokenHash, type SessionRow } from "../storage/capture-sessions.ts";
import { findSessionFile } from "../storage/files.ts";
import { findOrganization } from "../storage/organizations.ts";
import type { DomainContext } from "../domain/context.ts";

export async function findSessionByToken(db: Database, token: string): Promise<SessionRow | null> {
  if (token.length < 20 || token.length > 100) return null;
  return findSessionByTokenHash(db, await sha256Hex(token));
}

/**
 * The session behind a capture link, if the link may still be used: unknown → 404, completed → 410
 * `capture_link_used`, a losing "after" → 409 `compare_to_already_used` (every later call gets the refusal
 * its completion got, never a "used" that the page would read as done), past its expiry → 410
 * `capture_link_expired`. The link keeps working for reloads until the capture is completed. Problem bodies
 * carry the session's locale, the organisation's name and the session's `return_url`, so that the page can explain
 * in the person's language and say who to ask.
 */
export async function usableSession({ ctx, input }: { ctx: Pick<DomainContext, "db" | "now">; input: { token: string } }): Promise<SessionRow> {
  const { now } = ctx;
  const session = await findSessionByToken(ctx.db, input.token);
  if (session === null) throw new ApiError("capture_link_not_found");
  const expired = session.status === "expired" || Date.parse(session.expiresAt) <= now.getTime();
  if (session.status !== "completed" && session.status !== "rejected" && !expired) return session;
  // Who to ask, for the page to say so: the organisation's name and the session's way back to it.
  const organization = await findOrganization(ctx.db, session.organizationId);
  const extra = { locale: session.locale, organization_name: organization?.name ?? null, return_url: session.returnUrl };
  if (session.status === "completed") throw new ApiError("capture_link_used", { extra });
  if (session.status === "rejected") throw new ApiError("compare_to_already_used", { extra });
  throw new ApiError("capture_link_expired", { extra });
}

/** A file of a capture whose link may still be used (404 `capture_file_not_found` otherwise). */
export async function usableSessionFile({ ctx, input }: { ctx: Pick<DomainContext, "db" | "now">; input: { token: string; fileId: string } }) {
  const session = await usableSession({ ctx, input });
  const file = await findSessionFile(ctx.db, session.id, input.fileId);
  if (file === null) throw new ApiError("capture_file_not_found");
  return { session, file };
}
