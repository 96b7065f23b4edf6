/**
 * Measures what the real schema costs per proof, file, session, event and delivery (ADR 0055): applies
 * every migration to a fresh SQLite database (D1 is SQLite, 4,096-byte pages), inserts realistic rows
 * shaped as the service writes them, and reads the bytes each table and its indexes take from `dbstat`.
 * Then prints the five-year model of ADR 0055 (scripts/capacity-model.ts) from the measured bytes.
 * Usage: node scripts/measure-capacity.ts [proofs=5000] [files per proof=10]
 */
import { DatabaseSync } from "node:sqlite";
import { readdirSync, readFileSync, mkdtempSync } from "node:fs";
import { randomBytes, randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printFiveYearModel } from "./capacity-model.ts";
import { bandEntries, INSERT_BAND, packPrints, SIMILARITY_INDEX_SCHEMA, UPSERT_FILE, VARIANTS_PER_FILE } from "../src/durable/similarity-index-layout.ts";
import { DELIVERIES_PER_ROUND, EVENTS_PER_ROUND } from "../src/sweeps/archive-round-sizes.ts";

const PROOFS = Number(process.argv[2] ?? 5000);
const FILES_PER_PROOF = Number(process.argv[3] ?? 10);
const D1_DATABASE_BYTES = 10 * 1000 ** 3;

const db = new DatabaseSync(join(mkdtempSync(join(tmpdir(), "capacity-")), "d1.sqlite"));
for (const name of readdirSync("migrations")
  .filter((file) => file.endsWith(".sql"))
  .sort())
  db.exec(readFileSync(join("migrations", name), "utf8"));

const id = (prefix: string) =>
  `${prefix}_${randomBytes(15)
    .toString("base64url")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "0")
    .slice(0, 20)}`;
const hex = () => randomBytes(32).toString("hex");
const iso = (offsetMs = 0) => new Date(Date.UTC(2026, 10, 23) + offsetMs).toISOString();

// A realistic template snapshot: 8 steps in 4 languages (shared by every session made from it).
const snapshot = JSON.stringify({
  id: id("tpl"),
  name: "Vehicle check-in",
  default_locale: "en",
  ask_location: false,
  stage: "checkin",
  category: "car",
  theme_id: null,
  welcome: { title: { en: "Check-in", fr: "État des lieux", es: "Entrada", de: "Übergabe" }, body: null },
  completion: { title: { en: "Thank you", fr: "Merci", es: "Gracias", de: "Danke" }, body: null },
  steps: Array.from({ length: 8 }, (_, i) => ({
    id: `step_${i}`,
    required: true,
    kind: "photo",
    min_count: 1,
    max_count: 5,
    label: { en: `Side ${i}`, fr: `Côté ${i}`, es: `Lado ${i}`, de: `Seite ${i}` },
    instruction: {
      en: "Photograph this side from two metres, the whole panel in the frame.".repeat(2),
      fr: "Photographiez ce côté à deux mètres, tout le panneau dans le cadre.".repeat(2),
      es: "Fotografíe este lado a dos metros, con todo el panel en el encuadre.".repeat(2),
      de: "Fotografieren Sie diese Seite aus zwei Metern, die ganze Fläche im Bild.".repeat(2),
    },
  })),
});
const templateSha = hex();
const organization = id("org");
db.prepare("INSERT INTO organizations (id, name, balance, created_at, updated_at) VALUES (?, 'Acme Rentals', 100000, ?, ?)").run(organization, iso(), iso());
db.prepare("INSERT INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)").run(templateSha, snapshot, iso());

const insertSession =
  db.prepare(`INSERT INTO capture_sessions (id, organization_id, mode, status, token_hash, external_reference, party, stage, category, template_id, template_sha256, locale, location_reference, return_url, compare_to, holds_reservation, proof_id, created_at, updated_at, expires_at, completed_at)
  VALUES (?, ?, 'live', 'completed', ?, ?, 'provider', 'checkin', 'car', ?, ?, 'fr', NULL, 'https://shop.example/rentals/return', NULL, 0, ?, ?, ?, ?, ?)`);
// The trigger of migration 0026 numbers a proof for the re-hash cursor when an update seals it; inserted sealed here,
// the number is given.
const insertProof =
  db.prepare(`INSERT INTO proofs (id, organization_id, mode, status, session_id, external_reference, party, stage, category, location_reference, template_id, template_sha256, holds_reservation, manifest_sha256, timestamp_gen_time, timestamp_qualified, timestamp_authority, timestamp_serial, timestamp_policy, seal_attempts, sealing_run, created_at, updated_at, sealed_at, seal_certificate_sha256, seal_certificate_subject, sealed_record, rehash_seq, sealed_record_sha256)
  VALUES (?, ?, 'live', 'sealed', ?, ?, 'provider', 'checkin', 'car', NULL, ?, ?, 0, ?, ?, 1, 'Example Qualified TSA', ?, '1.3.6.1.4.1.99999.1.2', 1, ?, ?, ?, ?, ?, 'CN=Proof Seal 2026, O=Example', 2, ?, ?)`);
// Rows migrations 0015-0023 add per sealed proof and still kept: the evidence record, the report, the creation
// record. The re-hash keeps no row of a sealed proof whose objects match (ADR 0066); its prints are in the
// organization's similarity index, a Durable Object (ADR 0064), measured below.
const insertEvidence = db.prepare("INSERT INTO evidence_records (proof_id, mode, due_at) VALUES (?, 'live', ?)");
const insertReport = db.prepare(
  "INSERT INTO proof_reports (proof_id, kind, object_key, sha256, size, language, made_at) VALUES (?, 'proof', ?, ?, 2400000, 'fr', ?)",
);
const insertCreation = db.prepare(
  "INSERT INTO capture_session_creations (key_hash, session_id, request_hash, sealed_token, created_at) VALUES (?, ?, ?, ?, ?)",
);
const FINGERPRINT_VARIANTS = 6;
/** The organization's similarity index (a Durable Object's own SQLite, ADR 0064), written by its own statements. */
const similarityIndex = new DatabaseSync(join(mkdtempSync(join(tmpdir(), "similarity-index-")), "index.sqlite"));
for (const statement of SIMILARITY_INDEX_SCHEMA) similarityIndex.exec(statement);
const upsertIndexedFile = similarityIndex.prepare(UPSERT_FILE);
const insertBand = similarityIndex.prepare(INSERT_BAND);
function indexFile(fileId: string, proofId: string, stepId: string) {
  const prints = Array.from({ length: FINGERPRINT_VARIANTS }, () => ({ phash: randomBytes(8).toString("hex"), dhash: randomBytes(8).toString("hex") }));
  const { file } = upsertIndexedFile.get(fileId, proofId, stepId, 0, packPrints(prints)) as { file: number };
  prints.forEach((print, variant) => {
    for (const band of bandEntries(print.phash)) insertBand.run(band, file * VARIANTS_PER_FILE + variant);
  });
}
// What the sealer records per file since migrations 0012-0013 (CRC-32, decoded facts, one integrity signal). Since
// migration 0024 the decoded facts, signals, thumbnail and capture context go to the run's record in R2, not to D1.
const sealerFacts = {
  crc32: 3_735_928_559,
  decoded: { width: 4032, height: 3024, duration_ms: null },
  signals: [{ code: "clock_offset", detail: "The phone clock was 412 ms off." }],
};
/**
 * Bytes of the sealed records written to R2 (objects/sealed-records.ts), for the model's R2 side: since ADR 0065 the
 * record holds each file whole and the batch that seals the proof deletes the file rows, so a sealed proof keeps none.
 */
let recordBytes = 0;
const insertEvent = db.prepare("INSERT INTO events (id, organization_id, mode, type, data, created_at, dispatched_at) VALUES (?, ?, 'live', ?, ?, ?, ?)");
const insertDelivery =
  db.prepare(`INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, event, session_id, status, attempts, next_attempt_at, request_body, response_status, response_body_start, failure_reason, created_at, updated_at)
  VALUES (?, ?, 'live', ?, ?, ?, ?, 'succeeded', 1, NULL, ?, 200, ?, NULL, ?, ?)`);
const insertAttempt = db.prepare(
  "INSERT INTO webhook_attempts (id, delivery_id, attempt, webhook_id, started_at, duration_ms, response_status, response_body_start, failure_reason) VALUES (?, ?, 1, ?, ?, 184, 200, ?, NULL)",
);

const endpoint = id("whe");
db.exec("BEGIN");
similarityIndex.exec("BEGIN");
for (let n = 0; n < PROOFS; n++) {
  const at = iso(n * 60_000);
  const session = id("cps");
  const proof = id("prf");
  const reference = `RENTAL-2026-${String(100000 + n)}`;
  insertSession.run(session, organization, hex(), reference, id("tpl"), templateSha, proof, at, at, iso(n * 60_000 + 1_800_000), at);
  insertProof.run(proof, organization, session, reference, id("tpl"), templateSha, hex(), at, randomUUID(), randomUUID(), at, at, at, hex(), n + 1, hex());
  insertCreation.run(hex(), session, hex(), randomBytes(60).toString("base64"), at);
  insertEvidence.run(proof, at);
  insertReport.run(proof, `proofs/${proof}/report.pdf`, hex(), at);
  const recorded: Record<string, unknown> = {};
  for (let f = 0; f < FILES_PER_PROOF; f++) {
    const file = id("med");
    const context = {
      method: "camera",
      device_time: at,
      clock_offset_ms: 412,
      user_agent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36",
      location: null,
    };
    const thumbnail = {
      content_type: "image/webp",
      width: 480,
      height: 360,
      size: 18_204,
      sha256: hex(),
      key: `proofs/${proof}/runs/${randomUUID()}/thumbnails/${file}.webp`,
    };
    recorded[file] = {
      id: file,
      sessionId: session,
      proofId: proof,
      stepId: `step_${f % 8}`,
      kind: "photo",
      contentType: "image/jpeg",
      size: 4_194_304,
      sha256: hex(),
      status: "uploaded",
      originalKey: `captures/${session}/${file}`,
      signedKey: `proofs/${proof}/runs/${randomUUID()}/files/${file}.jpg`,
      signedSha256: hex(),
      signedSize: 4_203_311,
      sniffedType: "image/jpeg",
      priorC2pa: false,
      signedCrc32: sealerFacts.crc32,
      createdAt: at,
      capturedAt: at,
      captureContext: context,
      decoded: sealerFacts.decoded,
      signals: sealerFacts.signals,
      priorCredentials: null,
      thumbnail,
    };
    indexFile(file, proof, `step_${f % 8}`);
  }
  recordBytes += JSON.stringify({ proof_id: proof, run: randomUUID(), files: recorded, file_order: Object.keys(recorded) }).length;
  for (const type of ["capture_session.completed", "proof.sealed"]) {
    const event = id("evt");
    const data = JSON.stringify({
      proof_id: proof,
      session_id: session,
      external_reference: reference,
      party: "provider",
      stage: "checkin",
      compare_to: null,
      manifest_sha256: hex(),
      timestamp: { gen_time: at, qualified: true },
      sealed_at: at,
    });
    insertEvent.run(event, organization, type, data, at, at);
    const delivery = id("whd");
    insertDelivery.run(
      delivery,
      organization,
      endpoint,
      event,
      type,
      session,
      JSON.stringify({ event: type, ...JSON.parse(data) }),
      '{"received":true}',
      at,
      at,
    );
    insertAttempt.run(id("wha"), delivery, randomUUID(), at, '{"received":true}');
  }
}
db.exec("COMMIT");
similarityIndex.exec("COMMIT");
similarityIndex.exec("VACUUM");
const similarityIndexBytes = (similarityIndex.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat").get() as { bytes: number }).bytes;

/** Bytes of each table with its indexes, from dbstat (pages actually used, as D1 bills and caps them). */
function tableBytes(): Map<string, number> {
  const rows = db
    .prepare(`SELECT COALESCE(m.tbl_name, s.name) AS tbl, SUM(s.pgsize) AS bytes FROM dbstat s LEFT JOIN sqlite_schema m ON m.name = s.name GROUP BY tbl`)
    .all() as { tbl: string; bytes: number }[];
  return new Map(rows.map((row) => [row.tbl, row.bytes]));
}
const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

const measured = tableBytes();
/** Rows of each table in the first 30 days, before the archive takes events and deliveries. */
const rowsAtSealing = new Map(
  (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map(({ name }) => [
    name,
    count(name),
  ]),
);
const per = (table: string) => (measured.get(table) ?? 0) / Math.max(1, count(table));
const perSession = per("capture_sessions");
const perProofRow = per("proofs");
const perEvent = per("events");
const perDelivery = per("webhook_deliveries") + per("webhook_attempts") * (count("webhook_attempts") / count("webhook_deliveries"));

// The same rows 30 days on, after VACUUM: creation records gone after 24 hours (ADR 0046); events and finished
// deliveries with their attempts moved to the R2 archive (ADR 0067), which leaves a chunk row in D1 for each UTC
// day's round of an organization's rows, as src/sweeps/archive-events-and-deliveries.ts takes them.
const insertChunk = db.prepare(
  "INSERT INTO archive_chunks (organization_id, mode, kind, newest_created_at, newest_id, oldest_created_at, oldest_id, filters, row_count) VALUES (?, 'live', ?, ?, ?, ?, ?, ?, ?)",
);
function archive(kind: "events" | "deliveries", select: string, perRound: number) {
  const rows = db.prepare(select).all() as { id: string; created_at: string; filter: string }[];
  const days = new Map<string, typeof rows>();
  for (const row of rows) {
    const day = row.created_at.slice(0, 10);
    const list = days.get(day);
    if (list === undefined) days.set(day, [row]);
    else list.push(row);
  }
  for (const day of days.values())
    for (let at = 0; at < day.length; at += perRound) {
      const chunk = day.slice(at, at + perRound);
      const filters = [...new Set(chunk.map((row) => row.filter))].map((filter) => JSON.parse(filter));
      const [oldest, newest] = [chunk[0]!, chunk.at(-1)!];
      insertChunk.run(organization, kind, newest.created_at, newest.id, oldest.created_at, oldest.id, JSON.stringify(filters), chunk.length);
    }
}
db.exec("BEGIN");
archive("events", "SELECT id, created_at, json_array(type) AS filter FROM events ORDER BY created_at, id", EVENTS_PER_ROUND);
archive(
  "deliveries",
  "SELECT id, created_at, json_array(endpoint_id, status, event) AS filter FROM webhook_deliveries ORDER BY created_at, id",
  DELIVERIES_PER_ROUND,
);
db.exec("DELETE FROM webhook_attempts; DELETE FROM webhook_deliveries; DELETE FROM events; DELETE FROM capture_session_creations; COMMIT; VACUUM;");
const purged = tableBytes();

/** Tables holding rows a sealed proof leaves, beside its session, its proof row, events and deliveries. */
const SEALED_TABLES = [
  "files",
  "capture_session_creations",
  "evidence_records",
  "sealed_object_enrolments",
  "sealed_object_checks",
  "file_fingerprints",
  "proof_reports",
  "archive_chunks",
];
const sealedExtras = (sizes: Map<string, number>) => SEALED_TABLES.reduce((sum, table) => sum + (sizes.get(table) ?? 0), 0) / PROOFS;
const perProofExtras = sealedExtras(measured);
const proofTotal = perProofExtras + perSession + perProofRow + 2 * perEvent + 2 * perDelivery;
const proofTotalAfter30Days = sealedExtras(purged) + perSession + perProofRow;
const round = (bytes: number) => Math.round(bytes).toLocaleString("en-US");

console.log(
  `SQLite ${(db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v}, page size ${(db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size}, ${PROOFS} proofs of ${FILES_PER_PROOF} files, 1 endpoint`,
);
console.log(`| Row (with its indexes) | Bytes |`);
console.log(`| --- | ---: |`);
console.log(`| capture session | ${round(perSession)} |`);
console.log(`| proof row | ${round(perProofRow)} |`);
console.log(`| event | ${round(perEvent)} |`);
console.log(`| webhook delivery with its attempt | ${round(perDelivery)} |`);
console.log(
  `| template snapshot (8 steps, 4 languages; once per content) | ${round(measured.get("template_snapshots") ?? 0)} (${snapshot.length} bytes of JSON) |`,
);
for (const table of SEALED_TABLES)
  console.log(`| ${table} (per proof; after 30 days) | ${round((measured.get(table) ?? 0) / PROOFS)}; ${round((purged.get(table) ?? 0) / PROOFS)} |`);
console.log(`| **proof** (session + proof + 2 events + 2 deliveries + the rows above) | **${round(proofTotal)}** |`);
console.log(`| **proof after 30 days** (events and deliveries in the R2 archive) | **${round(proofTotalAfter30Days)}** |`);
console.log(`| not D1: the sealed record in R2 (per proof) | ${round(recordBytes / PROOFS)} |`);
console.log(
  `| not D1: ${FILES_PER_PROOF * FINGERPRINT_VARIANTS} prints in the organization's similarity index, a Durable Object (per proof) | ${round(similarityIndexBytes / PROOFS)} |`,
);
console.log(
  `One 10 GB D1 database: ${round(D1_DATABASE_BYTES / proofTotalAfter30Days)} proofs at rest (${round(D1_DATABASE_BYTES / proofTotal)} in their first 30 days)`,
);
const WINDOW_GB_AT_A_MILLION_A_DAY = ((proofTotal - proofTotalAfter30Days) * 1_000_000 * 30) / 1e9;
console.log(
  `Issue 31's target, 3 KB of D1 a sealed 10-photo proof: ${round(proofTotalAfter30Days)} bytes kept for ever (${proofTotalAfter30Days <= 3_000 ? "met" : "NOT met"}); its events and deliveries add ${round(proofTotal - proofTotalAfter30Days)} for their first 30 days only, a window that stays at ${round(WINDOW_GB_AT_A_MILLION_A_DAY)} GB over all shards at 1,000,000 proofs a day`,
);
console.log(`One similarity index (10 GB, a Durable Object per organization and mode): ${round((D1_DATABASE_BYTES * PROOFS) / similarityIndexBytes)} proofs`);
/**
 * Rows D1 counts as written for one proof's inserts: each row and one entry per index on its table
 * (D1's pricing page), from the rows inserted above; plus the rows the flow updates, counted from the code
 * (completion: session and 10 files; uploads: 10 marks; sealing: proof, balance, 10 files; webhooks: 2
 * events dispatched, 2 deliveries and 2 attempts completed).
 */
const UPDATED_ROWS_PER_PROOF = 1 + 10 + 10 + 1 + 1 + 10 + 6;
const indexes = new Map(
  (db.prepare("SELECT tbl_name AS tbl, COUNT(*) AS n FROM sqlite_schema WHERE type = 'index' GROUP BY tbl_name").all() as { tbl: string; n: number }[]).map(
    (row) => [row.tbl, row.n],
  ),
);
const perProofTables = ["capture_sessions", "proofs", "events", "webhook_deliveries", "webhook_attempts", ...SEALED_TABLES];
const rowsWrittenPerProof =
  perProofTables.reduce((sum, table) => sum + ((rowsAtSealing.get(table) ?? 0) / PROOFS) * (1 + (indexes.get(table) ?? 0)), 0) + UPDATED_ROWS_PER_PROOF;
console.log(`Tables measured per proof: ${perProofTables.join(", ")}`);
const similarityIndexRows = (table: string) => (similarityIndex.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
printFiveYearModel({
  d1Bytes: proofTotalAfter30Days,
  d1RowsWritten: rowsWrittenPerProof,
  similarityIndexBytes: similarityIndexBytes / PROOFS,
  // The bands table is WITHOUT ROWID, its own index; the files table has one more (file_id UNIQUE).
  similarityIndexRowsWritten: (2 * similarityIndexRows("files") + similarityIndexRows("bands")) / PROOFS,
});
