import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { captureCall, tokenOf, uploadPhoto } from "./support/capture.ts";
import { createOrganization } from "./support/factories.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { baseSession, createSession } from "./support/sessions.ts";

/** Counts the statements made through the D1 binding, writes apart (ADR 0055's statements a proof). */
function countingD1(db: D1Database) {
  const counts = { writes: 0, reads: 0 };
  const targets = new WeakMap<object, D1PreparedStatement>();
  const count = (sql: string) => {
    if (/^\s*(insert|update|delete|replace|with[\s\S]*\b(insert|update|delete)\b)/i.test(sql)) counts.writes++;
    else counts.reads++;
  };
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const counted = <T>(result: () => T): T => {
      count(sql);
      return result();
    };
    const wrapped = {
      bind: (...values: unknown[]) => wrap(statement.bind(...values), sql),
      first: (column?: string) => counted(() => (column === undefined ? statement.first() : statement.first(column))),
      run: () => counted(() => statement.run()),
      all: () => counted(() => statement.all()),
      raw: (options?: { columnNames?: boolean }) => counted(() => (options?.columnNames ? statement.raw({ columnNames: true }) : statement.raw())),
    } as unknown as D1PreparedStatement;
    targets.set(wrapped, statement);
    Object.assign(wrapped, { sql });
    return wrapped;
  };
  const binding = {
    prepare: (sql: string) => wrap(db.prepare(sql), sql),
    batch: (statements: D1PreparedStatement[]) => {
      for (const statement of statements) count((statement as unknown as { sql: string }).sql);
      return db.batch(statements.map((statement) => targets.get(statement) ?? statement));
    },
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
    withSession: () => binding,
  } as unknown as D1Database;
  return { binding, counts };
}

describe("D1 statements of one 10-photo proof", () => {
  it("counts what creation, ten uploads, completion and sealing write", async () => {
    const org = await createOrganization({ balance: 5 });
    const bindings = env as unknown as { DB: D1Database };
    const saved = bindings.DB;
    const { binding, counts } = countingD1(saved);
    bindings.DB = binding;
    const steps: Record<string, { writes: number; reads: number }> = {};
    const lap = (name: string) => {
      steps[name] = { ...counts };
      counts.writes = 0;
      counts.reads = 0;
    };
    try {
      const created = await createSession(org.liveKey, baseSession());
      expect(created.status).toBe(201);
      lap("creation");
      const token = tokenOf(created.body.capture_url);
      for (let i = 0; i < 10; i++) await uploadPhoto(token);
      lap("uploads");
      const done = await captureCall(token, "/complete", { body: {} });
      expect(done.status).toBe(200);
      lap("completion");
      const { deps } = dependencies(async (job) => sealedAnswer(job));
      expect(await sealProof(deps, done.body.proof_id)).toBe("sealed");
      lap("sealing");
    } finally {
      bindings.DB = saved;
    }
    console.log(`D1 statements of one 10-photo proof: ${JSON.stringify(steps)}`);
    // scripts/capacity-model.ts's WRITE_STATEMENTS: change both together. Creation includes the template
    // snapshot's insert (an isolate's first session); a seal's prints go to the similarity index, not D1 (docs/adr/0064).
    // Sealing writes no re-hash row since docs/adr/0066 (4 fewer), and
    // deletes the files' rows in one statement instead of updating each since docs/adr/0065 (9 fewer).
    expect(Object.fromEntries(Object.entries(steps).map(([step, made]) => [step, made.writes]))).toEqual({
      creation: 3,
      uploads: 20,
      completion: 14,
      sealing: 8,
    });
  });
});
