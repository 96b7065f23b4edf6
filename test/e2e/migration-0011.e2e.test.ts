import { describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// Runs in Node without the dev stack: the migration applied by SQLite itself (D1 is SQLite) to rows
// written the way the service wrote them before it.
const migrations = readdirSync("migrations")
  .filter((name) => name.endsWith(".sql"))
  .sort();
const apply = (db: DatabaseSync, names: string[]) => {
  for (const name of names) db.exec(readFileSync(join("migrations", name), "utf8"));
};
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("migration 0011: template snapshots stored once per content", () => {
  it("moves every session's snapshot into template_snapshots, one row per SHA-256, and drops the copy from sessions", () => {
    const db = new DatabaseSync(":memory:");
    apply(
      db,
      migrations.filter((name) => name < "0011"),
    );
    const now = "2026-11-01T00:00:00.000Z";
    db.prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES ('org_1', 'Acme', 10, ?, ?)").run(now, now);
    const insert = db.prepare(
      `INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, template_snapshot, template_sha256, locale, created_at, updated_at, expires_at)
       VALUES (?, 'org_1', 'test', 'expired', ?, 'ref', 'provider', ?, ?, 'en', ?, ?, ?)`,
    );
    const shared = '{"name":"Check-in","steps":[{"id":"front"}]}';
    const other = '{"name":"Check-out","steps":[{"id":"back"}]}';
    insert.run("cps_a", "h1", shared, sha256(shared), "2026-11-02T00:00:00.000Z", now, now);
    insert.run("cps_b", "h2", shared, sha256(shared), "2026-11-01T00:00:00.000Z", now, now);
    insert.run("cps_c", "h3", other, sha256(other), now, now, now);

    apply(
      db,
      migrations.filter((name) => name >= "0011"),
    );

    const snapshots = db.prepare("SELECT sha256, content, created_at FROM template_snapshots ORDER BY content").all() as Record<string, string>[];
    expect(snapshots).toEqual([
      { sha256: sha256(shared), content: shared, created_at: "2026-11-01T00:00:00.000Z" },
      { sha256: sha256(other), content: other, created_at: now },
    ]);
    const columns = (db.prepare("PRAGMA table_info(capture_sessions)").all() as { name: string }[]).map((column) => column.name);
    expect(columns).not.toContain("template_snapshot");
    expect(columns).toContain("template_sha256");
    const joined = db.prepare("SELECT s.id, t.content FROM capture_sessions s JOIN template_snapshots t ON t.sha256 = s.template_sha256 ORDER BY s.id").all();
    expect(joined.map((row) => (row as { content: string }).content)).toEqual([shared, shared, other]);
    expect((db.prepare("PRAGMA table_info(webhook_deliveries)").all() as { name: string }[]).map((column) => column.name)).toContain("body_deleted_at");
  });
});
