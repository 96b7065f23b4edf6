import { sql } from "drizzle-orm";
import { statement } from "./statement.ts";

/** The health check's probe of D1: throws when the database does not answer. */
export async function probeDatabase(d1: D1Database): Promise<void> {
  await statement(d1, sql`SELECT 1`).first();
}
