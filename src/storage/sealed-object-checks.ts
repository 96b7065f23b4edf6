import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { sealedObjectChecks } from "../db/schema/sealed-object-checks.ts";
import { chunks, D1_MAX_BOUND_PARAMETERS, rowsPerInsert } from "../lib/batches.ts";
import { fileExtension, packagedArtifactKey, proofArtifactKeys } from "./objects/bucket.ts";
import { statement, valueList } from "./statement.ts";

/**
 * The re-hash of sealed stored objects (migration 0019, docs/adr/0037): which objects each sealed proof
 * publishes, the SHA-256 each must have, and what the latest re-hash found. Raw statements, set-based, within
 * D1's 100 bound parameters.
 */

/** An object a sealed proof publishes, as the sweep re-hashes it. */
export interface SealedObject {
  objectKey: string;
  proofId: string;
  /** Its name in the package: `files/<id>.<ext>`, `manifest.json`, `proof.tsr`, `manifest.p7s`, `chain.pem`. */
  entry: string;
  fileId: string | null;
  /** null: an artifact of a proof sealed before its hash was recorded at sealing, until its first re-hash records it. */
  expectedSha256: string | null;
  size: number | null;
}

/** What the latest re-hash found for one object of a proof. */
export interface ObjectCheck extends SealedObject {
  /** null: not re-hashed yet. */
  lastCheckedAt: string | null;
  /** null: missing at the last re-hash, or not re-hashed yet. */
  foundSha256: string | null;
  /** null: not re-hashed yet. */
  matched: boolean | null;
  mismatchSince: string | null;
}

/** The outcome of re-hashing one object. */
export interface RehashOutcome {
  object: SealedObject;
  /** null: the object is not in storage. */
  foundSha256: string | null;
  size: number | null;
}

interface CheckRow {
  object_key: string;
  proof_id: string;
  entry: string;
  file_id: string | null;
  expected_sha256: string | null;
  size: number | null;
  last_checked_at: string | null;
  found_sha256: string | null;
  matched: number | null;
  mismatch_since: string | null;
}

const COLUMN_NAMES = ["object_key", "proof_id", "entry", "file_id", "expected_sha256", "size", "last_checked_at", "found_sha256", "matched", "mismatch_since"];
const COLUMNS = sql.raw(COLUMN_NAMES.join(", "));
/** The same columns of the table aliased `c`. */
const CHECK_COLUMNS_OF_C = sql.raw(COLUMN_NAMES.map((name) => `c.${name}`).join(", "));

const fromRow = (row: CheckRow): ObjectCheck => ({
  objectKey: row.object_key,
  proofId: row.proof_id,
  entry: row.entry,
  fileId: row.file_id,
  expectedSha256: row.expected_sha256,
  size: row.size,
  lastCheckedAt: row.last_checked_at,
  foundSha256: row.found_sha256,
  matched: row.matched === null ? null : row.matched === 1,
  mismatchSince: row.mismatch_since,
});

interface EnrolledProof {
  id: string;
  sealing_run: string | null;
  manifest_sha256: string | null;
  seal_certificate_sha256: string | null;
}

/** The objects a sealed proof publishes, with the hash D1 recorded at sealing where it holds one. */
function objectsOf(proof: EnrolledProof, files: { id: string; content_type: string; signed_key: string; signed_sha256: string; signed_size: number | null }[]) {
  const keys = proofArtifactKeys(proof.id, proof.sealing_run);
  const artifacts: SealedObject[] = [
    { objectKey: keys.manifest, proofId: proof.id, entry: "manifest.json", fileId: null, expectedSha256: proof.manifest_sha256, size: null },
    { objectKey: keys.timestampResponse, proofId: proof.id, entry: "proof.tsr", fileId: null, expectedSha256: null, size: null },
    { objectKey: keys.timestampChain, proofId: proof.id, entry: "chain.pem", fileId: null, expectedSha256: null, size: null },
    // Proofs sealed before the proof-level seal (manifest version 1) have no manifest.p7s: its absence is not an alteration.
    ...(proof.seal_certificate_sha256 === null
      ? []
      : [
          {
            objectKey: packagedArtifactKey(proof.id, proof.sealing_run, "manifest.p7s"),
            proofId: proof.id,
            entry: "manifest.p7s",
            fileId: null,
            expectedSha256: null,
            size: null,
          },
        ]),
  ];
  return [
    ...artifacts,
    ...files.map((file) => ({
      objectKey: file.signed_key,
      proofId: proof.id,
      entry: `files/${file.id}.${fileExtension(file.content_type)}`,
      fileId: file.id,
      expectedSha256: file.signed_sha256,
      size: file.signed_size,
    })),
  ];
}

/** The SHA-256 and size of a sealed artifact as the sealing run stored it. */
export interface StoredArtifact {
  sha256: string;
  size: number;
}

/**
 * The rows of a proof's own artifacts with the hashes of the bytes the sealing run stored (docs/adr/0037), written
 * in the batch that seals the proof, after its UPDATE: only when this run is the one that sealed it (a run that
 * lost the race publishes nothing). The first re-hash then already compares with what was sealed, instead of
 * taking what it finds; the sweep's enrolment keeps these rows (INSERT OR IGNORE).
 */
export function artifactChecksAtSealing(
  db: Database,
  proofId: string,
  run: string,
  artifacts: { manifest: StoredArtifact; timestampResponse: StoredArtifact; timestampChain: StoredArtifact; manifestSeal: StoredArtifact },
) {
  const keys = proofArtifactKeys(proofId, run);
  const rows: [string, string, StoredArtifact][] = [
    [keys.manifest, "manifest.json", artifacts.manifest],
    [keys.timestampResponse, "proof.tsr", artifacts.timestampResponse],
    [keys.timestampChain, "chain.pem", artifacts.timestampChain],
    [packagedArtifactKey(proofId, run, "manifest.p7s"), "manifest.p7s", artifacts.manifestSeal],
  ];
  return rows.map(([objectKey, entry, { sha256, size }]) =>
    db
      .insert(sealedObjectChecks)
      .select(
        // Every column in the table's order; nothing re-hashed yet.
        sql`SELECT ${objectKey}, ${proofId}, ${entry}, NULL, ${sha256}, ${size}, NULL, NULL, NULL, NULL WHERE EXISTS (SELECT 1 FROM proofs WHERE id = ${proofId} AND status = 'sealed' AND sealing_run = ${run})`,
      )
      .onConflictDoNothing(),
  );
}

/**
 * Lists the objects of up to `limit` sealed proofs queued by migration 0019's trigger (sealed longest ago
 * first) and takes them off the queue, in one atomic batch: a proof is listed whole or not at all. Returns
 * how many objects were listed.
 */
export async function enrolSealedObjects(d1: D1Database, limit: number): Promise<number> {
  const proofs = (
    await statement(
      d1,
      sql`SELECT p.id, p.sealing_run, p.manifest_sha256, p.seal_certificate_sha256 FROM sealed_object_enrolments e JOIN proofs p ON p.id = e.proof_id ORDER BY e.sealed_at, e.proof_id LIMIT ${sql.raw(String(limit))}`,
    ).all<EnrolledProof>()
  ).results;
  if (proofs.length === 0) return 0;
  const ids = proofs.map((proof) => proof.id);
  const files = (
    await statement(
      d1,
      sql`SELECT id, proof_id, content_type, signed_key, signed_sha256, signed_size FROM files WHERE proof_id IN (${valueList(ids)}) AND signed_key IS NOT NULL AND signed_sha256 IS NOT NULL`,
    ).all<{ id: string; proof_id: string; content_type: string; signed_key: string; signed_sha256: string; signed_size: number | null }>()
  ).results;
  const objects = proofs.flatMap((proof) =>
    objectsOf(
      proof,
      files.filter((file) => file.proof_id === proof.id),
    ),
  );
  const inserts = chunks(objects, rowsPerInsert(6)).map((rows) =>
    statement(
      d1,
      sql`INSERT OR IGNORE INTO sealed_object_checks (object_key, proof_id, entry, file_id, expected_sha256, size) VALUES ${sql.join(
        rows.map((row) => sql`(${row.objectKey}, ${row.proofId}, ${row.entry}, ${row.fileId}, ${row.expectedSha256}, ${row.size})`),
        sql`, `,
      )}`,
    ),
  );
  const dequeue = chunks(ids, D1_MAX_BOUND_PARAMETERS).map((some) =>
    statement(d1, sql`DELETE FROM sealed_object_enrolments WHERE proof_id IN (${valueList(some)})`),
  );
  await d1.batch([...inserts, ...dequeue]);
  return objects.length;
}

/** Up to `limit` objects re-hashed longest ago, never re-hashed first (the index `sealed_object_checks_due`). */
export async function objectsDueForRehash(d1: D1Database, limit: number): Promise<SealedObject[]> {
  const rows = await statement(
    d1,
    sql`SELECT ${COLUMNS} FROM sealed_object_checks ORDER BY last_checked_at, object_key LIMIT ${sql.raw(String(limit))}`,
  ).all<CheckRow>();
  return rows.results.map(fromRow);
}

/**
 * Records a run's re-hashes in one atomic batch. An artifact without an expected hash takes the one found
 * (its first re-hash); an object found with its expected hash matches; anything else (another hash, or no
 * object) is a mismatch, dated from its first detection. Returns the mismatches.
 */
export async function recordRehashes(d1: D1Database, outcomes: readonly RehashOutcome[], checkedAt: string): Promise<RehashOutcome[]> {
  const matches = (outcome: RehashOutcome) =>
    outcome.foundSha256 !== null && (outcome.object.expectedSha256 === null || outcome.object.expectedSha256 === outcome.foundSha256);
  const plainMatches = outcomes.filter((outcome) => matches(outcome) && outcome.object.expectedSha256 !== null && outcome.object.size !== null);
  const others = outcomes.filter((outcome) => !plainMatches.includes(outcome));
  const statements = [
    // Most objects match: one statement per round of keys.
    ...chunks(
      plainMatches.map((outcome) => outcome.object.objectKey),
      D1_MAX_BOUND_PARAMETERS - 1,
    ).map((keys) =>
      statement(
        d1,
        sql`UPDATE sealed_object_checks SET last_checked_at = ${checkedAt}, found_sha256 = expected_sha256, matched = 1, mismatch_since = NULL WHERE object_key IN (${valueList(keys)})`,
      ),
    ),
    ...others.map((outcome) =>
      matches(outcome)
        ? statement(
            d1,
            sql`UPDATE sealed_object_checks SET last_checked_at = ${checkedAt}, expected_sha256 = COALESCE(expected_sha256, ${outcome.foundSha256}), size = COALESCE(size, ${outcome.size}), found_sha256 = ${outcome.foundSha256}, matched = 1, mismatch_since = NULL WHERE object_key = ${outcome.object.objectKey}`,
          )
        : statement(
            d1,
            sql`UPDATE sealed_object_checks SET last_checked_at = ${checkedAt}, found_sha256 = ${outcome.foundSha256}, matched = 0, mismatch_since = COALESCE(mismatch_since, ${checkedAt}) WHERE object_key = ${outcome.object.objectKey}`,
          ),
    ),
  ];
  if (statements.length > 0) await d1.batch(statements);
  return outcomes.filter((outcome) => !matches(outcome));
}

/** What the latest re-hash found for each object of one proof (empty: not listed yet). */
export async function proofObjectChecks(d1: D1Database, proofId: string): Promise<ObjectCheck[]> {
  const rows = await statement(d1, sql`SELECT ${COLUMNS} FROM sealed_object_checks WHERE proof_id = ${proofId} ORDER BY entry`).all<CheckRow>();
  return rows.results.map(fromRow);
}

/** Whether the latest re-hash of one stored object found it changed since sealing (false: matched, or not re-hashed or listed yet). */
export async function foundAltered(d1: D1Database, objectKey: string): Promise<boolean> {
  const row = await statement(d1, sql`SELECT matched FROM sealed_object_checks WHERE object_key = ${objectKey}`).first<{ matched: number | null }>();
  return row?.matched === 0;
}

/** An object found altered or missing, with its proof's mode and organization, for the operator. */
export interface AlteredObject extends ObjectCheck {
  mode: "test" | "live";
  organizationId: string;
}

/**
 * Objects whose latest re-hash found them altered or missing, latest detected first, after the keyset
 * `after` (the previous page's last mismatch_since and object key); the partial index `sealed_object_checks_altered`.
 */
export async function alteredObjects(
  d1: D1Database,
  input: { limit: number; after: { mismatchSince: string; objectKey: string } | null },
): Promise<AlteredObject[]> {
  const after = input.after === null ? sql`` : sql`AND (c.mismatch_since, c.object_key) < (${input.after.mismatchSince}, ${input.after.objectKey})`;
  const rows = await statement(
    d1,
    sql`SELECT ${CHECK_COLUMNS_OF_C}, p.mode, p.organization_id FROM sealed_object_checks c JOIN proofs p ON p.id = c.proof_id WHERE c.matched = 0 ${after} ORDER BY c.mismatch_since DESC, c.object_key DESC LIMIT ${sql.raw(String(input.limit))}`,
  ).all<CheckRow & { mode: "test" | "live"; organization_id: string }>();
  return rows.results.map((row) => ({ ...fromRow(row), mode: row.mode, organizationId: row.organization_id }));
}
