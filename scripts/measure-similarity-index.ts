/**
 * Measures what a sealed proof's prints cost in its similarity index (docs/adr/0064), the SQLite of a Durable Object,
 * beside the layouts it was chosen from: each layout gets a fresh database of `proofs` proofs of `files` photos, six
 * prints a photo (the whole picture and five crops), and its bytes are read from `dbstat` after VACUUM (pages used,
 * 4,096 bytes each, as in scripts/measure-capacity.ts).
 * Usage: node scripts/measure-similarity-index.ts [proofs=5000] [files per proof=10]
 */
import { DatabaseSync } from "node:sqlite";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bandEntries, INSERT_BAND, packPrints, SIMILARITY_INDEX_SCHEMA, UPSERT_FILE, VARIANTS_PER_FILE } from "../src/durable/similarity-index-layout.ts";

const PROOFS = Number(process.argv[2] ?? 5000);
const FILES_PER_PROOF = Number(process.argv[3] ?? 10);
const VARIANTS = 6;

const base36 = () => Array.from(randomBytes(20), (byte) => (byte % 36).toString(36)).join("");
const hex64 = () => randomBytes(8).toString("hex");
/** A pHash's print as an SQLite INTEGER: the 64 bits, signed. */
const int64 = (hex: string) => BigInt.asIntN(64, BigInt(`0x${hex}`));

interface Layout {
  name: string;
  schema: readonly string[];
  insertFile(db: DatabaseSync, file: { fileId: string; proofId: string; stepId: string; prints: { phash: string; dhash: string }[] }): void;
}

const LAYOUTS: Layout[] = [
  {
    name: "chosen: a file row with its prints in a BLOB, band entries WITHOUT ROWID",
    schema: SIMILARITY_INDEX_SCHEMA,
    insertFile(db, file) {
      const { file: key } = db.prepare(UPSERT_FILE).get(file.fileId, file.proofId, file.stepId, 0, packPrints(file.prints)) as { file: number };
      const band = db.prepare(INSERT_BAND);
      file.prints.forEach((print, variant) => {
        for (const entry of bandEntries(print.phash)) band.run(entry, key * VARIANTS_PER_FILE + variant);
      });
    },
  },
  {
    name: "a row a print, 64-bit integers, four indexed band columns",
    schema: [
      "CREATE TABLE prints (file_id TEXT NOT NULL, variant INTEGER NOT NULL, proof_id TEXT NOT NULL, step_id TEXT NOT NULL, phash INTEGER NOT NULL, dhash INTEGER NOT NULL, band0 INTEGER NOT NULL, band1 INTEGER NOT NULL, band2 INTEGER NOT NULL, band3 INTEGER NOT NULL, PRIMARY KEY (file_id, variant))",
      ...[0, 1, 2, 3].map((band) => `CREATE INDEX prints_band${band} ON prints (band${band})`),
    ],
    insertFile(db, file) {
      const insert = db.prepare("INSERT INTO prints VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      file.prints.forEach((print, variant) => {
        const bands = bandEntries(print.phash).map((entry) => entry % 65_536);
        insert.run(file.fileId, variant, file.proofId, file.stepId, int64(print.phash), int64(print.dhash), ...bands);
      });
    },
  },
  {
    name: "a file row, a print row WITHOUT ROWID (64-bit integers), band entries WITHOUT ROWID",
    schema: [
      "CREATE TABLE files (file INTEGER PRIMARY KEY, file_id TEXT NOT NULL UNIQUE, proof_id TEXT NOT NULL, step_id TEXT NOT NULL)",
      "CREATE TABLE prints (print INTEGER PRIMARY KEY, phash INTEGER NOT NULL, dhash INTEGER NOT NULL) WITHOUT ROWID",
      "CREATE TABLE bands (band INTEGER NOT NULL, print INTEGER NOT NULL, PRIMARY KEY (band, print)) WITHOUT ROWID",
    ],
    insertFile(db, file) {
      const { file: key } = db
        .prepare("INSERT INTO files (file_id, proof_id, step_id) VALUES (?, ?, ?) RETURNING file")
        .get(file.fileId, file.proofId, file.stepId) as { file: number };
      file.prints.forEach((print, variant) => {
        const printKey = key * VARIANTS_PER_FILE + variant;
        db.prepare("INSERT INTO prints VALUES (?, ?, ?)").run(printKey, int64(print.phash), int64(print.dhash));
        for (const entry of bandEntries(print.phash)) db.prepare("INSERT INTO bands VALUES (?, ?)").run(entry, printKey);
      });
    },
  },
];

for (const layout of LAYOUTS) {
  const db = new DatabaseSync(join(mkdtempSync(join(tmpdir(), "similarity-index-")), "index.sqlite"));
  for (const statement of layout.schema) db.exec(statement);
  db.exec("BEGIN");
  for (let proof = 0; proof < PROOFS; proof++) {
    const proofId = `prf_00${base36()}`;
    for (let file = 0; file < FILES_PER_PROOF; file++) {
      const prints = Array.from({ length: VARIANTS }, () => ({ phash: hex64(), dhash: hex64() }));
      layout.insertFile(db, { fileId: `med_00${base36()}`, proofId, stepId: `step_${file % 8}`, prints });
    }
  }
  db.exec("COMMIT");
  db.exec("VACUUM");
  const { bytes } = db.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat").get() as { bytes: number };
  console.log(
    `${layout.name}: ${Math.round(bytes / PROOFS).toLocaleString("en")} bytes a proof of ${FILES_PER_PROOF} photos (${VARIANTS * FILES_PER_PROOF} prints)`,
  );
  db.close();
}
