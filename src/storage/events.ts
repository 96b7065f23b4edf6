import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import type { Mode } from "../auth/mode.ts";
import { keysetPage } from "./keyset-page.ts";


export async function listEvents(db: Database, organizationId: string, mode: Mode, type: string | undefined, limit: number, cursor: string | undefined) {
  const page = keysetPage({ createdAt: events.createdAt, id: events.id }, cursor);
  return db
    .select()
    .from(events)
    .where(and(eq(events.organizationId, organizationId), eq(events.mode, mode), type === undefined ? undefined : eq(events.type, type), page.where))
    .orderBy(...page.orderBy)
    .limit(limit + 1)
    .all();
}
