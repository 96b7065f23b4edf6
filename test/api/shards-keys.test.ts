import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { env, exports } from "cloudflare:workers";
import { AdminClient } from "../../scripts/lib/admin-client.ts";
import { admin, callJson } from "./support/client.ts";
import { database } from "../../src/db/client.ts";
import { captureSessions, proofs } from "../../src/db/schema/index.ts";
import { newShardedId } from "../../src/db/shards.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";

/**
 * API keys name their shard (issue 31 point 3, docs/adr/0062): an organization is placed on a shard by the
 * operator, lives whole there, and its key's requests read and write that shard's database only.
 * The tests' configuration keeps new organizations on 00 (vitest.config.ts); this file opens all three.
 */
const SHARDS = ["00", "01", "02"] as const;
type Shard = (typeof SHARDS)[number];
const BINDING: Record<Shard, "DB" | "DB_01" | "DB_02"> = { "00": "DB", "01": "DB_01", "02": "DB_02" };
const configuredOpenShards = env.OPEN_SHARDS;

beforeAll(() => {
  env.OPEN_SHARDS = "00,01,02";
});
afterAll(() => {
  env.OPEN_SHARDS = configuredOpenShards;
});

/** The shards whose database holds a row of `table` with this id. */
async function shardsHolding(table: string, id: string): Promise<Shard[]> {
  const found = await Promise.all(SHARDS.map((shard) => env[BINDING[shard]].prepare(`SELECT 1 FROM ${table} WHERE id = ?`).bind(id).first()));
  return SHARDS.filter((_, index) => found[index] !== null);
}

async function organizationOn(shard: Shard) {
  const org = await admin("/admin/v1/organizations", { name: `On ${shard}`, shard });
  expect(org.status).toBe(201);
  expect(org.body).toEqual({ id: expect.stringMatching(new RegExp(`^org_${shard}[0-9a-z]{20}$`)), name: `On ${shard}`, balance: 0, shard });
  const key = await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "test" });
  expect(key.status).toBe(201);
  expect(key.body.key).toMatch(new RegExp(`^sk_test_${shard}[A-Za-z0-9_-]{32}$`));
  expect(key.body.id).toMatch(new RegExp(`^key_${shard}[0-9a-z]{20}$`));
  return { id: org.body.id as string, key: key.body.key as string, keyId: key.body.id as string };
}

/** A sealed proof of `organizationId` written straight into its shard, for rows that point at a proof. */
async function insertSealedProof(shard: Shard, organizationId: string): Promise<string> {
  const binding = env[BINDING[shard]];
  const now = new Date().toISOString();
  const sessionId = newShardedId("cps", shard);
  const proofId = newShardedId("prf", shard);
  const templateSha256 = await sha256Hex("{}");
  await binding.prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, '{}', ?)").bind(templateSha256, now).run();
  const common = {
    organizationId,
    mode: "test" as const,
    externalReference: `ref-${proofId}`,
    party: "provider" as const,
    stage: "checkin" as const,
    templateSha256,
  };
  await database(binding)
    .insert(captureSessions)
    .values({
      ...common,
      id: sessionId,
      status: "completed",
      tokenHash: await sha256Hex(crypto.randomUUID()),
      locale: "en",
      holdsReservation: 0,
      proofId,
      createdAt: now,
      updatedAt: now,
      expiresAt: now,
      completedAt: now,
    });
  await database(binding)
    .insert(proofs)
    .values({ ...common, id: proofId, status: "sealed", sessionId, holdsReservation: 0, createdAt: now, updatedAt: now });
  return proofId;
}

const template = (name: string) => ({
  name,
  default_locale: "en",
  welcome: { title: "Hello", body: "…" },
  steps: [{ id: "room", label: "Room", instruction: "Photograph it" }],
  completion: { title: "Thanks", body: null },
});

describe("organizations on shards, and keys naming theirs", () => {
  it("places an organization whole on the shard named: its row and its keys there only", async () => {
    for (const shard of SHARDS) {
      const org = await organizationOn(shard);
      expect(await shardsHolding("organizations", org.id)).toEqual([shard]);
      expect(await shardsHolding("api_keys", org.keyId)).toEqual([shard]);
      const stored = await env[BINDING[shard]].prepare("SELECT key_prefix FROM api_keys WHERE id = ?").bind(org.keyId).first<{ key_prefix: string }>();
      expect(stored?.key_prefix).toBe(org.key.slice(0, 14));
      const me = await callJson("/v1/me", { key: org.key });
      expect(me.body).toMatchObject({ organization: { id: org.id }, key_id: org.keyId });
    }
  });

  it("reads and writes with each key in its own shard only; another shard's resource is 404", async () => {
    const orgs = await Promise.all(SHARDS.map(organizationOn));
    const templates: string[] = [];
    for (const [index, shard] of SHARDS.entries()) {
      const created = await callJson("/v1/capture-templates", { key: orgs[index]!.key, body: template(`Template of ${shard}`) });
      expect(created.status).toBe(201);
      expect(await shardsHolding("capture_templates", created.body.id)).toEqual([shard]);
      templates.push(created.body.id);
    }
    for (const [index, org] of orgs.entries()) {
      const own = await callJson(`/v1/capture-templates/${templates[index]}`, { key: org.key });
      expect(own.status).toBe(200);
      const other = await callJson(`/v1/capture-templates/${templates[(index + 1) % SHARDS.length]}`, { key: org.key });
      expect(other.status).toBe(404);
      const listed = await callJson("/v1/capture-templates", { key: org.key });
      expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([templates[index]]);
    }
    // The operator's balance lands in the organization's shard, and its key's caller reads it there.
    const credited = await admin(`/admin/v1/organizations/${orgs[1]!.id}/balance`, { amount: 7, reason: "shard 01" });
    expect(credited).toMatchObject({ status: 200, body: { balance: 7, available: 7 } });
    const stored = await env.DB_01.prepare("SELECT balance FROM organizations WHERE id = ?").bind(orgs[1]!.id).first<{ balance: number }>();
    expect(stored?.balance).toBe(7);
  });

  it("answers 401 for a key whose shard characters are altered or name no shard, never 5xx", async () => {
    const org = await organizationOn("01");
    const body = org.key.slice("sk_test_01".length);
    const variants = [
      `sk_test_02${body}`, // another shard that exists: not there
      `sk_test_00${body}`,
      `sk_test_zz${body}`, // a well-formed code this deployment does not have
      `sk_test_A_${body}`, // not a shard code at all
      `sk_test_${body}`, // the 32 random characters alone: a key from before shards, looked up in 00
    ];
    for (const key of variants) {
      const response = await callJson("/v1/me", { key });
      expect(response.status, key).toBe(401);
      expect(response.body.code).toBe("unauthenticated");
      expect(response.headers.get("Content-Type")).toBe("application/problem+json");
    }
    expect((await callJson("/v1/me", { key: org.key })).status).toBe(200);
  });

  it("finds an organization and a key by the shard their id names: unknown shard is the 404 of an unknown id", async () => {
    const org = await organizationOn("02");
    expect((await callJson("/v1/me", { key: org.key })).status).toBe(200);
    const revoked = await admin(`/admin/v1/api-keys/${org.keyId}`, undefined, "DELETE");
    expect(revoked.status).toBe(204);
    expect((await callJson("/v1/me", { key: org.key })).status).toBe(401);
    const elsewhere = `org_zz${org.id.slice("org_02".length)}`;
    for (const [path, body] of [
      [`/admin/v1/organizations/${elsewhere}/api-keys`, { mode: "test" }],
      [`/admin/v1/organizations/${elsewhere}/balance`, { amount: 1, reason: "x" }],
      [`/admin/v1/organizations/org_01${org.id.slice("org_02".length)}/api-keys`, { mode: "test" }],
    ] as const) {
      const response = await admin(path, body);
      expect(response.status, path).toBe(404);
      expect(response.body.code).toBe("not_found");
    }
    expect((await admin(`/admin/v1/api-keys/key_zz${org.keyId.slice("key_02".length)}`, undefined, "DELETE")).status).toBe(404);
  });

  it("refuses a shard that is unknown or closed with 422 shard_not_open, a malformed one with validation_failed", async () => {
    for (const shard of ["03", "zz"]) {
      const response = await admin("/admin/v1/organizations", { name: "Nowhere", shard });
      expect(response.body).toMatchObject({ status: 422, code: "shard_not_open", field: "/shard" });
    }
    env.OPEN_SHARDS = "00,02";
    try {
      expect((await admin("/admin/v1/organizations", { name: "Closed", shard: "01" })).body).toMatchObject({ status: 422, code: "shard_not_open" });
    } finally {
      env.OPEN_SHARDS = "00,01,02";
    }
    for (const shard of ["1", "001", "AB", 1]) {
      expect((await admin("/admin/v1/organizations", { name: "Malformed", shard })).body).toMatchObject({
        status: 422,
        code: "validation_failed",
        field: "/shard",
      });
    }
  });

  it("npm run admin's create-org --shard places the organization there, and names a closed one's refusal", async () => {
    // The CLI's client, its HTTP calls sent to this Worker.
    const fetched = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => exports.default.fetch(new Request(input, init)));
    try {
      const client = new AdminClient("http://localhost:8787", env.ADMIN_TOKEN!);
      const created = await client.createOrganization("From the CLI", "02");
      expect(created).toMatchObject({ shard: "02", id: expect.stringMatching(/^org_02/) });
      expect(await shardsHolding("organizations", created.id)).toEqual(["02"]);
      await expect(client.createOrganization("From the CLI", "03")).rejects.toThrow(/422 shard_not_open .*\(\/shard\)/);
    } finally {
      fetched.mockRestore();
    }
  });

  it("places an organization without a shard on the open shard with the fewest organizations", async () => {
    const counts = async () =>
      Promise.all(SHARDS.map(async (shard) => (await env[BINDING[shard]].prepare("SELECT COUNT(*) AS n FROM organizations").first<{ n: number }>())!.n));
    // Shard 00 gets ahead, then the next organizations go to the others until they catch up, ties to the first listed.
    for (let extra = 0; extra < 3; extra++) await admin("/admin/v1/organizations", { name: "Ahead", shard: "00" });
    const placed: string[] = [];
    for (let created = 0; created < 9; created++) {
      const before = await counts();
      const fewest = Math.min(...before);
      const response = await admin("/admin/v1/organizations", { name: `Placed ${created}` });
      expect(response.status).toBe(201);
      expect(response.body.shard).toBe(SHARDS[before.indexOf(fewest)]);
      expect(response.body.id.startsWith(`org_${response.body.shard}`)).toBe(true);
      placed.push(response.body.shard);
    }
    expect(new Set(placed)).toEqual(new Set(SHARDS));
    const after = await counts();
    expect(Math.max(...after) - Math.min(...after)).toBeLessThanOrEqual(1);
    // A closed shard takes none, however empty.
    env.OPEN_SHARDS = "00,02";
    try {
      for (let created = 0; created < 3; created++) expect((await admin("/admin/v1/organizations", { name: "Open only" })).body.shard).not.toBe("01");
    } finally {
      env.OPEN_SHARDS = "00,01,02";
    }
  });

  it("lists altered objects over every shard, a page at a time, newest mismatch first", async () => {
    const mismatches: string[] = [];
    for (const [index, shard] of SHARDS.entries()) {
      const org = await organizationOn(shard);
      const proofId = await insertSealedProof(shard, org.id);
      for (let object = 0; object < 2; object++) {
        const since = new Date(Date.UTC(2026, 0, 1, 0, index * 2 + object)).toISOString();
        const key = `proofs/${proofId}/altered-${object}`;
        await env[BINDING[shard]]
          .prepare(
            "INSERT INTO sealed_object_checks (object_key, proof_id, entry, matched, mismatch_since, last_checked_at, found_sha256) VALUES (?, ?, ?, 0, ?, ?, NULL)",
          )
          .bind(key, proofId, `altered-${object}`, since, since)
          .run();
        mismatches.push(key);
      }
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await admin(`/admin/v1/altered-objects?limit=4${cursor ? `&cursor=${cursor}` : ""}`, undefined, "GET");
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((row: { key: string }) => row.key));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    const ours = seen.filter((key) => mismatches.includes(key));
    expect(ours).toEqual([...mismatches].reverse());
    expect(new Set(seen).size).toBe(seen.length);
  });
});
