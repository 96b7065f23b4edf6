/** The health check's probe of D1: throws when the database does not answer. */
export async function probeDatabase(d1: D1Database): Promise<void> {
  await d1.prepare("SELECT 1").first();
}
