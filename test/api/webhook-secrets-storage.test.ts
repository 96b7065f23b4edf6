import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { database } from "../../src/db/client.ts";
import { secretsOf } from "../../src/storage/webhooks.ts";

/** A D1 binding that remembers every statement it runs and how many rows each read. */
function recordingD1(statements: { sql: string; rowsRead: number }[]): D1Database {
  return new Proxy(env.DB, {
    get(target, property) {
      if (property !== "prepare") return Reflect.get(target, property).bind(target);
      return (sql: string) => {
        const record = { sql, rowsRead: 0 };
        statements.push(record);
        const statement = target.prepare(sql);
        return new Proxy(statement, {
          get(inner, name) {
            const value = Reflect.get(inner, name);
            if (name === "bind")
              return (...values: unknown[]) => {
                const bound = (value as (...args: unknown[]) => D1PreparedStatement).apply(inner, values);
                return new Proxy(bound, { get: (b, n) => wrapRun(b, n, record) });
              };
            return wrapRun(inner, name, record);
          },
        });
      };
    },
  });
}

function wrapRun(statement: D1PreparedStatement, name: string | symbol, record: { rowsRead: number }) {
  const value = Reflect.get(statement, name);
  if (typeof value !== "function") return value;
  if (name !== "all" && name !== "raw" && name !== "first" && name !== "run") return value.bind(statement);
  return async (...args: unknown[]) => {
    const result = await value.apply(statement, args);
    if (name === "all" || name === "run") record.rowsRead += (result as D1Result).meta?.rows_read ?? 0;
    if (name === "raw") record.rowsRead += (result as unknown[]).length;
    return result;
  };
}

describe("webhook secrets storage", () => {
  it("loads the secrets of the endpoints asked for only, with the ids in the query (no table scan filtered in JavaScript)", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) {
      const org = await createOrganization();
      const created = await callJson("/v1/webhook-endpoints", {
        key: org.testKey,
        body: { url: `https://hooks${index}.example.com/in`, events: ["proof.sealed"] },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const statements: { sql: string; rowsRead: number }[] = [];
    const secrets = await secretsOf(database(recordingD1(statements)), [ids[0]!]);
    expect([...secrets.keys()]).toEqual([ids[0]]);
    expect(secrets.get(ids[0]!)).toHaveLength(1);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.sql).toMatch(/where "webhook_secrets"\."endpoint_id" in \(\?\)/);
    expect(statements[0]!.rowsRead).toBeLessThanOrEqual(1);
  });

  it("answers for more endpoints than D1 binds parameters in one query", async () => {
    const org = await createOrganization();
    const created = await callJson("/v1/webhook-endpoints", { key: org.testKey, body: { url: "https://many.example.com/in", events: ["proof.sealed"] } });
    const unknown = Array.from({ length: 150 }, (_, index) => `we_unknown_${index}`);
    const secrets = await secretsOf(database(env.DB), [...unknown, created.body.id]);
    expect([...secrets.keys()]).toEqual([created.body.id]);
  });
});
