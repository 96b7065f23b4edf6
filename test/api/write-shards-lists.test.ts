import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";
import { giveWriteShard, insertCompletedCapture, insertUploadedFile, SHARD_BINDING } from "./support/write-shards.ts";
import { database } from "../../src/db/client.ts";
import { events } from "../../src/db/schema/index.ts";
import { newShardedId } from "../../src/db/shards.ts";
import { archiveEvents } from "../../src/storage/events.ts";
import { insertStubOrganization } from "../../src/storage/write-shards.ts";

/**
 * The lists of an organization that writes to more than one shard (docs/adr/0070): `GET /v1/proofs` and
 * `GET /v1/events` run their keyset query on every shard of the organization at once and merge the pages by
 * (created_at, id), newest first, as one database would answer them. Rows are written straight into each
 * shard, interleaved in time, with instants shared across shards (the id breaks the tie).
 */
const SHARDS = ["00", "01", "02"] as const;
type Shard = (typeof SHARDS)[number];
const db = (shard: Shard) => database(env[SHARD_BINDING[shard]]);

interface Listed {
  id: string;
  createdAt: string;
}
interface ProofFacts extends Listed {
  shard: Shard;
  externalReference: string;
  party: "provider" | "recipient";
  stage: string;
  status: "pending" | "sealed" | "failed";
  linked: boolean;
}
interface EventFacts extends Listed {
  type: "proof.sealed" | "proof.failed";
}

const newestFirst = (a: Listed, b: Listed) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);
const at = (second: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, second)).toISOString();

async function insertProof(
  shard: Shard,
  organizationId: string,
  facts: Omit<ProofFacts, "id" | "shard" | "linked">,
  mode: "test" | "live" = "test",
): Promise<ProofFacts> {
  const { proofId: id } = await insertCompletedCapture(shard, organizationId, { ...facts, mode });
  return { ...facts, id, shard, linked: false };
}

/** Makes `after` the "after" of `before` (both of one shard, as ADR 0070 point 3 keeps them). */
async function pair(before: ProofFacts, after: ProofFacts): Promise<void> {
  const binding = env[SHARD_BINDING[before.shard]];
  await binding.batch([
    binding.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after.id, before.id),
    binding.prepare("UPDATE proofs SET compare_to = ? WHERE id = ?").bind(before.id, after.id),
  ]);
  before.linked = true;
  after.linked = true;
}

/** A file row of a proof, in the proof's shard (a pending proof's files are read from D1). */
async function insertFile(proof: ProofFacts): Promise<string> {
  const id = newShardedId("med", proof.shard);
  const session = await env[SHARD_BINDING[proof.shard]].prepare("SELECT session_id FROM proofs WHERE id = ?").bind(proof.id).first<{ session_id: string }>();
  await insertUploadedFile(proof.shard, { id, sessionId: session!.session_id, proofId: proof.id, createdAt: proof.createdAt });
  return id;
}

async function insertEvent(
  shard: Shard,
  organizationId: string,
  type: EventFacts["type"],
  createdAt: string,
  mode: "test" | "live" = "test",
): Promise<EventFacts> {
  const id = newShardedId("evt", shard);
  await db(shard)
    .insert(events)
    .values({ id, organizationId, mode, type, data: { n: id }, createdAt });
  return { id, type, createdAt };
}

/** An organization homed on 00 with write shards 01 then 02, its stub rows written first as `add-write-shard` does. */
async function organizationOnThreeShards() {
  const org = await createOrganization({ rateLimit: 10_000 });
  await giveWriteShard(org.id, "01", { fromAt: at(0), stubName: "Stub" });
  await giveWriteShard(org.id, "02", { fromAt: at(30), stubName: "Stub" });
  return org;
}

/** Every page of a list, `limit` at a time: each page's own rules checked, the ids in the order answered. */
async function everyPage(path: string, key: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const separator = path.includes("?") ? "&" : "?";
    const page: { status: number; body: any } = await callJson(
      `${path}${separator}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      { key },
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...page.body.data.map((item: { id: string }) => item.id));
    expect(page.body.next_cursor === null).toBe(!page.body.has_more);
    if (!page.body.has_more) return ids;
    expect(page.body.data.length).toBe(limit);
    cursor = page.body.next_cursor;
  }
  throw new Error(`${path}: no last page`);
}

/** The D1 statements a request makes on each shard, the rows each returned, and how many were in flight at once. */
interface Statement {
  shard: Shard;
  sql: string;
  rows: number;
}
const saved = { DB: env.DB, DB_01: env.DB_01, DB_02: env.DB_02 };
afterEach(() => Object.assign(env, saved));

function watchShards(): { statements: Statement[]; mostAtOnce: () => number } {
  const statements: Statement[] = [];
  let inFlight = 0;
  let most = 0;
  const track = async <T>(shard: Shard, sql: string, work: () => Promise<T>, rowsOf: (result: T) => number): Promise<T> => {
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      const result = await work();
      statements.push({ shard, sql, rows: rowsOf(result) });
      return result;
    } finally {
      inFlight--;
    }
  };
  const watched = (shard: Shard, sql: string, statement: D1PreparedStatement): D1PreparedStatement =>
    ({
      inner: statement,
      bind: (...values: unknown[]) => watched(shard, sql, statement.bind(...values)),
      all: () =>
        track(
          shard,
          sql,
          () => statement.all(),
          (result) => result.results.length,
        ),
      raw: (options?: { columnNames?: boolean }) =>
        options?.columnNames
          ? track(
              shard,
              sql,
              () => statement.raw({ columnNames: true }),
              (result) => result.length - 1,
            )
          : track(
              shard,
              sql,
              () => statement.raw(),
              (result) => result.length,
            ),
      first: (column?: string) =>
        track(
          shard,
          sql,
          () => (column === undefined ? statement.first() : statement.first(column)),
          (row) => (row === null ? 0 : 1),
        ),
      run: () =>
        track(
          shard,
          sql,
          () => statement.run(),
          () => 0,
        ),
    }) as unknown as D1PreparedStatement;
  const inner = (statement: D1PreparedStatement) => (statement as unknown as { inner?: D1PreparedStatement }).inner ?? statement;
  for (const shard of SHARDS) {
    const binding = saved[SHARD_BINDING[shard]];
    (env as unknown as Record<string, unknown>)[SHARD_BINDING[shard]] = {
      prepare: (sql: string) => watched(shard, sql, binding.prepare(sql)),
      batch: (list: D1PreparedStatement[]) => binding.batch(list.map(inner)),
      exec: (sql: string) => binding.exec(sql),
      dump: () => binding.dump(),
      withSession: (constraint?: string) => binding.withSession(constraint),
    };
  }
  return { statements, mostAtOnce: () => most };
}

// The cursor as this API has always issued it (docs/adr/0030): the last row's [created_at, id], base64url, a dot,
// and the first 16 bytes of HMAC-SHA256 under a key derived from WEBHOOK_SECRET_KEY, over the list's scope and it.
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
async function cursorIssuedBefore(list: string, organizationId: string, last: Listed): Promise<string> {
  const encoder = new TextEncoder();
  const base = await crypto.subtle.importKey("raw", encoder.encode(env.WEBHOOK_SECRET_KEY), "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: encoder.encode("pagination cursor v1") },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  const position = base64url(encoder.encode(JSON.stringify([last.createdAt, last.id])));
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${list}:${organizationId}:test\n${position}`));
  return `${position}.${base64url(new Uint8Array(mac, 0, 16))}`;
}

describe("lists of an organization on three shards (home 00, write shards 01 and 02)", () => {
  let org: Awaited<ReturnType<typeof organizationOnThreeShards>>;
  const listedProofs: ProofFacts[] = [];
  const listedEvents: EventFacts[] = [];
  const fileOf = new Map<string, string>();

  beforeAll(async () => {
    org = await organizationOnThreeShards();
    // 18 proofs, two a second, each of the pair on another shard: every filter value on every shard.
    for (let i = 0; i < 18; i++) {
      const shard = SHARDS[i % 3]!;
      listedProofs.push(
        await insertProof(shard, org.id, {
          createdAt: at(Math.floor(i / 2)),
          externalReference: i % 2 === 0 ? "lease-A" : "lease-B",
          party: Math.floor(i / 3) % 2 === 0 ? "provider" : "recipient",
          stage: Math.floor(i / 6) % 2 === 0 ? "checkin" : "checkout",
          status: (["sealed", "pending", "failed"] as const)[Math.floor(i / 6) % 3]!,
        }),
      );
    }
    for (const [before, after] of [
      [6, 9],
      [7, 10],
      [11, 14],
    ] as const) {
      await pair(listedProofs[before]!, listedProofs[after]!);
    }
    for (const shard of SHARDS) {
      const pending = listedProofs.find((proof) => proof.shard === shard && proof.status === "pending")!;
      fileOf.set(pending.id, await insertFile(pending));
    }
    for (let i = 0; i < 15; i++)
      listedEvents.push(await insertEvent(SHARDS[i % 3]!, org.id, i % 4 === 0 ? "proof.failed" : "proof.sealed", at(Math.floor(i / 3))));
    // Never listed: the organization's live mode, and another organization homed on 01.
    const other = database(env.DB_01);
    await insertProof("02", org.id, { createdAt: at(5), externalReference: "lease-A", party: "provider", stage: "checkin", status: "sealed" }, "live");
    await insertEvent("01", org.id, "proof.sealed", at(5), "live");
    await insertStubOrganization(other, { id: "org_01otherorganization000", name: "Other" }, at(0));
    await insertProof("01", "org_01otherorganization000", {
      createdAt: at(6),
      externalReference: "lease-A",
      party: "provider",
      stage: "checkin",
      status: "sealed",
    });
    await insertEvent("01", "org_01otherorganization000", "proof.sealed", at(6));
  });

  it("page through GET /v1/proofs: every proof of every shard exactly once, newest first, ties by id", async () => {
    const expected = listedProofs.toSorted(newestFirst).map((proof) => proof.id);
    expect(new Set(listedProofs.map((proof) => proof.shard))).toEqual(new Set(SHARDS));
    for (const limit of [1, 2, 5, 100]) expect(await everyPage("/v1/proofs", org.testKey, limit), `limit ${limit}`).toEqual(expected);
  });

  it("answer each proof with its files, read in the proof's own shard", async () => {
    const page = await callJson("/v1/proofs?limit=100&status=pending", { key: org.testKey });
    expect(fileOf.size).toBe(3);
    for (const [proofId, fileId] of fileOf) {
      const listed = page.body.data.find((proof: { id: string }) => proof.id === proofId);
      expect(
        listed.files.map((file: { id: string }) => file.id),
        proofId,
      ).toEqual([fileId]);
    }
  });

  it("apply every filter of GET /v1/proofs on every shard", async () => {
    const filters: Array<[string, (proof: ProofFacts) => boolean]> = [
      ["external_reference=lease-A", (proof) => proof.externalReference === "lease-A"],
      ["party=recipient", (proof) => proof.party === "recipient"],
      ["stage=checkout", (proof) => proof.stage === "checkout"],
      ["status=failed", (proof) => proof.status === "failed"],
      ["linked=true", (proof) => proof.linked],
      ["linked=false", (proof) => !proof.linked && proof.status === "sealed"],
      [`created_after=${at(2)}&created_before=${at(7)}`, (proof) => proof.createdAt >= at(2) && proof.createdAt < at(7)],
      [
        "external_reference=lease-A&stage=checkout&status=pending",
        (proof) => proof.externalReference === "lease-A" && proof.stage === "checkout" && proof.status === "pending",
      ],
    ];
    for (const [query, keeps] of filters) {
      const expected = listedProofs.filter(keeps).toSorted(newestFirst);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(await everyPage(`/v1/proofs?${query}`, org.testKey, 2), query).toEqual(expected.map((proof) => proof.id));
    }
    // Every filter's kept and dropped rows are on every shard: a filter left out on one shard shows above.
    for (const [query, keeps] of filters) {
      expect(new Set(listedProofs.filter(keeps).map((proof) => proof.shard)), query).toEqual(new Set(SHARDS));
      expect(new Set(listedProofs.filter((proof) => !keeps(proof)).map((proof) => proof.shard)), query).toEqual(new Set(SHARDS));
    }
  });

  it("page through GET /v1/events, with and without its type filter", async () => {
    expect(await everyPage("/v1/events", org.testKey, 2)).toEqual(listedEvents.toSorted(newestFirst).map((event) => event.id));
    expect(await everyPage("/v1/events", org.testKey, 4)).toEqual(listedEvents.toSorted(newestFirst).map((event) => event.id));
    const failed = listedEvents.filter((event) => event.type === "proof.failed").toSorted(newestFirst);
    expect(failed.length).toBeGreaterThan(2);
    expect(await everyPage("/v1/events?type=proof.failed", org.testKey, 1)).toEqual(failed.map((event) => event.id));
  });

  it("ask every shard at once, for at most limit + 1 rows each", async () => {
    for (const [path, table] of [
      ["/v1/proofs?limit=2", '"proofs"'],
      ["/v1/events?limit=2", '"events"'],
    ] as const) {
      const watch = watchShards();
      expect((await callJson(path, { key: org.testKey })).status).toBe(200);
      Object.assign(env, saved);
      const lists = watch.statements.filter((statement) => statement.sql.includes(`from ${table}`) && statement.sql.includes("order by"));
      expect(lists.map((statement) => statement.shard).toSorted(), path).toEqual([...SHARDS]);
      for (const list of lists) expect(list.rows, `${path} on ${list.shard}`).toBe(3);
      expect(watch.mostAtOnce(), path).toBeGreaterThanOrEqual(3);
    }
  });

  it("refuse a forged, altered or foreign cursor as any list does: 422 invalid_cursor", async () => {
    const first = await callJson("/v1/proofs?limit=2", { key: org.testKey });
    const cursor: string = first.body.next_cursor;
    const [position, tag] = cursor.split(".") as [string, string];
    const onShard02 = listedProofs.find((proof) => proof.shard === "02")!;
    const otherOrganizationProof = { createdAt: at(6), id: "prf_01otherproof0000000000" };
    const refused = [
      `${base64url(new TextEncoder().encode(JSON.stringify([onShard02.createdAt, onShard02.id])))}.${tag}`, // another position, a genuine tag
      `${position}.${tag.startsWith("A") ? "B" : "A"}${tag.slice(1)}`,
      `${position}.${tag}.${tag}`,
      "garbled",
      await cursorIssuedBefore("proofs", "org_01otherorganization000", otherOrganizationProof),
    ];
    for (const list of ["/v1/proofs", "/v1/events"]) {
      for (const bad of refused) {
        const answer = await callJson(`${list}?limit=2&cursor=${encodeURIComponent(bad)}`, { key: org.testKey });
        expect(answer.body, `${list} ${bad}`).toMatchObject({ status: 422, code: "invalid_cursor", field: "/query/cursor" });
      }
    }
    const ofEvents = await cursorIssuedBefore("events", org.id, onShard02);
    expect((await callJson(`/v1/proofs?cursor=${encodeURIComponent(ofEvents)}`, { key: org.testKey })).body).toMatchObject({
      status: 422,
      code: "invalid_cursor",
    });
    expect((await callJson(`/v1/events?cursor=${encodeURIComponent(ofEvents)}`, { key: org.testKey })).status).toBe(200);
  });
  it("page through GET /v1/events with a write shard's events moved to its R2 archive (ADR 0067)", async () => {
    await env.DB_01.prepare("UPDATE events SET dispatched_at = created_at WHERE organization_id = ? AND mode = 'test'").bind(org.id).run();
    const moved = await archiveEvents(db("01"), env, at(100), 100, 10);
    expect(moved.moved).toBe(listedEvents.filter((_, index) => index % 3 === 1).length);
    const left = await env.DB_01.prepare("SELECT COUNT(*) AS n FROM events WHERE organization_id = ? AND mode = 'test'").bind(org.id).first<{ n: number }>();
    expect(left?.n).toBe(0);
    const expected = listedEvents.toSorted(newestFirst);
    for (const limit of [1, 4]) expect(await everyPage("/v1/events", org.testKey, limit), `limit ${limit}`).toEqual(expected.map((event) => event.id));
    const failed = expected.filter((event) => event.type === "proof.failed");
    expect(await everyPage("/v1/events?type=proof.failed", org.testKey, 1)).toEqual(failed.map((event) => event.id));
  });
});

describe("lists of an organization on one shard", () => {
  it("answer today's cursor, from today's statements on its shard alone, and take a cursor issued before", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const made: ProofFacts[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(
        await insertProof("00", org.id, { createdAt: at(40 + i), externalReference: "lease-A", party: "provider", stage: "checkin", status: "pending" }),
      );
    }
    const [third, second, first] = made.toSorted(newestFirst) as [ProofFacts, ProofFacts, ProofFacts];
    const watch = watchShards();
    const page = await callJson("/v1/proofs?limit=1", { key: org.testKey });
    Object.assign(env, saved);
    expect(page.body.data.map((proof: Listed) => proof.id)).toEqual([third.id]);
    expect(page.body.next_cursor).toBe(await cursorIssuedBefore("proofs", org.id, third));
    // Today's statements: the key's look-up, the page (limit + 1 rows) and its proofs' file rows, on 00 only.
    expect(watch.statements.map((statement) => [statement.shard, statement.sql.split(" from ")[1]?.split(" ")[0]])).toEqual([
      ["00", '"api_keys"'],
      ["00", '"proofs"'],
      ["00", '"files"'],
    ]);
    expect(watch.statements[1]!.rows).toBe(2);
    const next = await callJson(`/v1/proofs?limit=1&cursor=${encodeURIComponent(await cursorIssuedBefore("proofs", org.id, second))}`, { key: org.testKey });
    expect(next.body).toMatchObject({ data: [{ id: first.id }], has_more: false, next_cursor: null });
  });

  it("a cursor issued before the organization gained a write shard pages on through both", async () => {
    const org = await createOrganization({ rateLimit: 1000 });
    const home = [
      await insertProof("00", org.id, { createdAt: at(50), externalReference: "lease-A", party: "provider", stage: "checkin", status: "pending" }),
      await insertProof("00", org.id, { createdAt: at(52), externalReference: "lease-A", party: "provider", stage: "checkin", status: "pending" }),
      await insertProof("00", org.id, { createdAt: at(54), externalReference: "lease-A", party: "provider", stage: "checkin", status: "pending" }),
    ];
    const page = await callJson("/v1/proofs?limit=1", { key: org.testKey });
    expect(page.body.data[0].id).toBe(home[2]!.id);
    await giveWriteShard(org.id, "01", { fromAt: at(55), stubName: "Stub" });
    const written = [
      await insertProof("01", org.id, { createdAt: at(51), externalReference: "lease-A", party: "provider", stage: "checkin", status: "pending" }),
      await insertProof("01", org.id, { createdAt: at(56), externalReference: "lease-A", party: "provider", stage: "checkin", status: "pending" }),
    ];
    // A new key reads the organization's shards afresh (a known key's are cached 10 s); cursors are the organization's.
    const key = (await createKey(org.id, { mode: "test" })).key;
    const rest = await callJson(`/v1/proofs?limit=10&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key });
    expect(rest.body.data.map((proof: Listed) => proof.id)).toEqual([home[1]!.id, written[0]!.id, home[0]!.id]);
    expect((await callJson("/v1/proofs?limit=10", { key })).body.data.map((proof: Listed) => proof.id)).toEqual([
      written[1]!.id,
      home[2]!.id,
      home[1]!.id,
      written[0]!.id,
      home[0]!.id,
    ]);
  });
});
