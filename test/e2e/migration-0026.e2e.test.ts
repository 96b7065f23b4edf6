import { describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// Runs in Node without the dev stack: the migration applied by SQLite itself (D1 is SQLite) to rows written the way
// the service wrote them before it (docs/adr/0066).
const migrations = readdirSync("migrations")
  .filter((name) => name.endsWith(".sql"))
  .sort();
const apply = (db: DatabaseSync, names: string[]) => {
  for (const name of names) db.exec(readFileSync(join("migrations", name), "utf8"));
};
const now = "2026-11-01T00:00:00.000Z";

/** A pending proof with its completed session, as capture completion leaves it. */
function pendingProof(db: DatabaseSync, id: string) {
  db.prepare(
    `INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, template_sha256, locale, proof_id, created_at, updated_at, expires_at)
     VALUES (?, 'org_1', 'test', 'completed', ?, 'ref', 'provider', 't', 'en', ?, ?, ?, ?)`,
  ).run(`cps_${id}`, `h_${id}`, id, now, now, now);
  db.prepare(
    `INSERT INTO proofs (id, organization_id, mode, status, session_id, external_reference, party, stage, template_sha256, created_at, updated_at)
     VALUES (?, 'org_1', 'test', 'pending', ?, 'ref', 'provider', 'checkin', 't', ?, ?)`,
  ).run(id, `cps_${id}`, now, now);
}
const seal = (db: DatabaseSync, id: string, sealedAt: string) =>
  db
    .prepare("UPDATE proofs SET status = 'sealed', sealing_run = 'run', manifest_sha256 = 'm', sealed_at = ?, updated_at = ? WHERE id = ?")
    .run(sealedAt, sealedAt, id);
const check = (db: DatabaseSync, proofId: string, entry: string, fileId: string | null, matched: number | null) =>
  db
    .prepare(
      "INSERT INTO sealed_object_checks (object_key, proof_id, entry, file_id, expected_sha256, last_checked_at, found_sha256, matched, mismatch_since) VALUES (?, ?, ?, ?, 'e', ?, ?, ?, ?)",
    )
    .run(`${proofId}/${entry}`, proofId, entry, fileId, now, matched === 0 ? "x" : "e", matched, matched === 0 ? now : null);

describe("migration 0026: the re-hash cursor instead of a row per object", () => {
  it("keeps every mismatch and the artifacts' expected hashes, drops what the proof records itself, and orders sealed proofs", () => {
    const db = new DatabaseSync(":memory:");
    apply(
      db,
      migrations.filter((name) => name < "0026"),
    );
    db.prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES ('org_1', 'Acme', 10, ?, ?)").run(now, now);
    for (const id of ["prf_b", "prf_a", "prf_c", "prf_pending"]) pendingProof(db, id);
    seal(db, "prf_b", "2026-11-02T00:00:00.000Z");
    seal(db, "prf_a", "2026-11-03T00:00:00.000Z");
    seal(db, "prf_c", "2026-11-02T00:00:00.000Z");
    check(db, "prf_a", "files/f1.jpg", "f1", 1);
    check(db, "prf_a", "files/f2.jpg", "f2", 0);
    check(db, "prf_a", "files/f3.jpg", "f3", null);
    check(db, "prf_a", "manifest.json", null, 1);
    check(db, "prf_a", "proof.tsr", null, 1);
    check(db, "prf_a", "chain.pem", null, 0);
    check(db, "prf_a", "manifest.p7s", null, null);
    expect((db.prepare("SELECT COUNT(*) AS n FROM sealed_object_enrolments").get() as { n: number }).n).toBe(3);

    apply(
      db,
      migrations.filter((name) => name >= "0026"),
    );

    // Mismatches and the artifacts' rows stay; matched or not-yet-checked files and the manifest go.
    expect(
      (db.prepare("SELECT entry, matched FROM sealed_object_checks ORDER BY entry").all() as { entry: string; matched: number | null }[]).map((row) => [
        row.entry,
        row.matched,
      ]),
    ).toEqual([
      ["chain.pem", 0],
      ["files/f2.jpg", 0],
      ["manifest.p7s", null],
      ["proof.tsr", 1],
    ]);
    // Sealed proofs in the order they were sealed (ties by id); a pending one has no place.
    const order = () =>
      Object.fromEntries(
        (db.prepare("SELECT id, rehash_seq FROM proofs").all() as { id: string; rehash_seq: number | null }[]).map((row) => [row.id, row.rehash_seq]),
      );
    expect(order()).toEqual({ prf_b: 1, prf_c: 2, prf_a: 3, prf_pending: null });
    expect(db.prepare("SELECT round_started_at, position, previous_round_end, artifact_hashes_from FROM rehash_cursor").all()).toEqual([
      { round_started_at: null, position: 0, previous_round_end: 0, artifact_hashes_from: 4 },
    ]);
    expect((db.prepare("SELECT COUNT(*) AS n FROM sealed_object_enrolments").get() as { n: number }).n).toBe(0);
    // Sealing now takes the next place in the statement that seals, and queues nothing.
    seal(db, "prf_pending", "2026-10-01T00:00:00.000Z");
    expect(order().prf_pending).toBe(4);
    expect((db.prepare("SELECT COUNT(*) AS n FROM sealed_object_enrolments").get() as { n: number }).n).toBe(0);
  });
});
