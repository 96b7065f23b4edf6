import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";

/**
 * The capacity script of ADR 0055 measures today's schema and prints the model. A thousand proofs: with fewer, the
 * pages of tables a sealed proof leaves empty (files, matched object checks) weigh on each proof as rows would.
 */
describe("capacity script", () => {
  const output = execFileSync(process.execPath, ["scripts/measure-capacity.ts", "1000", "10"], { encoding: "utf8" });

  it("measures every table that holds rows of a proof, session, file or delivery", () => {
    const db = new DatabaseSync(":memory:");
    for (const name of readdirSync("migrations")
      .filter((file) => file.endsWith(".sql"))
      .sort())
      db.exec(readFileSync(`migrations/${name}`, "utf8"));
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name);
    const perProof = tables.filter((table) =>
      (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((column) =>
        ["proof_id", "session_id", "file_id", "delivery_id", "event_id"].includes(column.name),
      ),
    );
    const measured = /Tables measured per proof: (.+)/.exec(output)?.[1]?.split(", ") ?? [];
    expect(perProof.length).toBeGreaterThan(5);
    for (const table of perProof) expect(measured, table).toContain(table);
  });

  it("measures a sealed 10-photo proof at rest within issue 31's 3 KB of D1, and what one database holds", () => {
    const bytes = (row: string) => Number(new RegExp(`\\*\\*${row}\\*\\*[^|]*\\| \\*\\*([\\d,]+)\\*\\*`).exec(output)?.[1]?.replaceAll(",", ""));
    const atRest = bytes("proof after 30 days");
    // Files, object checks, prints, events and deliveries no longer stay (docs/adr/0064 to 0067): about 2.5 KB.
    expect(atRest).toBeGreaterThan(1_000);
    expect(atRest).toBeLessThanOrEqual(3_000);
    // Its first 30 days add its events and deliveries, kept in D1 for the delivery log's bodies and retries.
    expect(bytes("proof")).toBeGreaterThan(atRest);
    expect(output).toMatch(/One 10 GB D1 database: [\d,]+ proofs at rest/);
    expect(output).toMatch(/Issue 31's target, 3 KB of D1 a sealed 10-photo proof: [\d,]+ bytes kept for ever \(met\)/);
    expect(output).toMatch(/not D1: 60 prints in the organization's similarity index, a Durable Object \(per proof\) \| [\d,]+ \|/);
  });

  it("prints the five-year model against each limit, with the cost per proof", () => {
    expect(output).toContain("## Five years at 1,000,000 proofs a day");
    for (const limit of [
      "D1 database size",
      "D1 storage per account | 1 TB",
      "D1 databases per account",
      "D1 throughput",
      "D1 queries per invocation",
      "D1 bound parameters",
      "Queues throughput",
      "Containers",
      "| R2 |",
      "Workers requests",
      "Similarity index | 10 GB a Durable Object",
    ])
      expect(output).toContain(limit);
    expect(output).toMatch(/D1 write statements a proof \(measured and counted, ADR 0055\): \d+/);
    expect(output).toMatch(/\| \*\*total\*\* \| \*\*\$[\d.e-]+\*\* \|/);
  });
});
