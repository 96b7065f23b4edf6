import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { scene, VARIANTS } from "../../sealer/test/scenes.ts";

/**
 * Issue 31 point 3 on `npm run dev` (docs/adr/0062): an organization placed on each of the three local D1
 * shards through the operator API goes through the whole flow, in parallel on one stack: a capture of three
 * photos through its link as a phone sends them, sealed; its public JSON, page and package; verify-by-hash
 * finding it from a signed file's SHA-256 alone; its rows in its own shard's database and in no other; and the
 * sweeps reaching every shard (a session whose stored expiry is moved into the past in its shard's local D1,
 * as `wrangler d1 execute --local` lets a developer do, is expired by the next sweep: the API gives every
 * session 30 minutes and takes no shorter lifetime).
 */
const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "shards-"));
const SHARDS = [
  { code: "00", binding: "DB" },
  { code: "01", binding: "DB_01" },
  { code: "02", binding: "DB_02" },
] as const;
/** The three photos each capture sends (the built-in template's one step, "photos"). */
const PHOTOS = [
  { file: "photo.jpg", type: "image/jpeg" },
  { file: "photo.png", type: "image/png" },
  { file: "photo.webp", type: "image/webp" },
];

/** The bodies a local webhook receiver got, reached as `HOOK` through the stack's WEBHOOK_RESOLVE. */
const HOOK = "https://hooks.example.com:9443/shards";
const delivered: Array<{ event: string; [field: string]: unknown }> = [];
let receiver: Server;

let stack: Stack;
beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    delivered.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    res.writeHead(200).end("thanks");
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const { port } = receiver.address() as { port: number };
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5", WEBHOOK_RESOLVE: `hooks.example.com:9443=127.0.0.1:${port}` } });
});
afterAll(async () => {
  await stack?.stop();
  receiver?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

/**
 * Statements run on one shard's local D1 through wrangler, as a developer would; each statement's rows. The stack's
 * sweeps write to the same SQLite files every 5 s, so a command that meets their lock is run again (the statements
 * are reads and one idempotent update); the last failure is given with wrangler's own words.
 */
async function onShardDatabase(binding: string, statements: string[]): Promise<Array<Array<Record<string, unknown>>>> {
  let failure: unknown;
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const { stdout } = await promisify(execFile)(
        join(root, "node_modules/.bin/wrangler"),
        ["d1", "execute", binding, "--local", "--persist-to", join(stateDir, "state"), "--json", "--command", statements.join(";\n")],
        { cwd: root, env: { ...process.env, CI: "true" } },
      );
      return (JSON.parse(stdout) as Array<{ results: Array<Record<string, unknown>> }>).map((statement) => statement.results);
    } catch (error) {
      failure = error;
      const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
      if (!/SQLITE_BUSY|database is locked/i.test(`${stdout}${stderr}`)) break;
      await new Promise((done) => setTimeout(done, 1000));
    }
  }
  const { stdout = "", stderr = "" } = failure as { stdout?: string; stderr?: string };
  throw new Error(`wrangler d1 execute ${binding} failed: ${stderr || stdout}`, { cause: failure });
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const quoted = (ids: string[]) => ids.map((id) => `'${id}'`).join(",");

interface Placed {
  shard: (typeof SHARDS)[number];
  organizationId: string;
  key: string;
  proof: any;
  openSessionId: string;
}

/** An organization on `shard` with a test key, one sealed capture of three photos and one session left open. */
async function organizationThroughTheFlow(shard: (typeof SHARDS)[number]): Promise<Placed> {
  const admin = { token: stack.adminToken };
  const organization = await request(`${stack.baseUrl}/admin/v1/organizations`, { ...admin, body: { name: `Shard ${shard.code}`, shard: shard.code } });
  expect(organization.status).toBe(201);
  expect(organization.body.shard).toBe(shard.code);
  const organizationId: string = organization.body.id;
  expect(organizationId).toMatch(new RegExp(`^org_${shard.code}[0-9a-z]{20}$`));
  const issued = await request(`${stack.baseUrl}/admin/v1/organizations/${organizationId}/api-keys`, { ...admin, body: { mode: "test" } });
  expect(issued.status).toBe(201);
  const key: string = issued.body.key;
  expect(key).toMatch(new RegExp(`^sk_test_${shard.code}[A-Za-z0-9_-]{32}$`));

  const { session, completed } = await captureOverHttp(
    stack,
    key,
    { external_reference: `shard-${shard.code}-${Date.now()}`, party: "provider", stage: "checkin" },
    PHOTOS,
  );
  expect(session.id as string).toMatch(new RegExp(`^cps_${shard.code}[0-9a-z]{20}$`));
  // The capture link's token names the shard too: its two characters, then 43 random ones.
  expect(new URL(session.capture_url).pathname.split("/").pop()).toMatch(new RegExp(`^${shard.code}[A-Za-z0-9_-]{43}$`));
  expect(completed.status).toBe(200);
  const proofId: string = completed.body.proof_id;
  expect(proofId).toMatch(new RegExp(`^prf_${shard.code}[0-9a-z]{20}$`));
  const proof = await waitForProof(stack, key, proofId, (p) => p.status !== "pending", 90_000, 1000);
  expect(proof.status).toBe("sealed");
  expect(proof.files).toHaveLength(3);

  const open = await request(`${stack.baseUrl}/v1/capture-sessions`, {
    token: key,
    headers: { "Idempotency-Key": crypto.randomUUID() },
    body: { external_reference: `shard-${shard.code}-open`, party: "provider" },
  });
  expect(open.status).toBe(201);
  return { shard, organizationId, key, proof, openSessionId: open.body.id };
}

describe("an organization on each D1 shard, on one npm run dev", () => {
  let placed: Placed[] = [];
  let expiredInTheirShards = false;

  it("the supervision health check probes every shard by its code", async () => {
    const health = await request(`${stack.baseUrl}/health/details`, { token: stack.supervisionToken });
    expect(Object.keys(health.body.checks.database.shards).sort()).toEqual(SHARDS.map((shard) => shard.code));
    for (const check of Object.values<{ status: string }>(health.body.checks.database.shards)) expect(check.status).toBe("ok");
  });

  it("each is placed on its shard and seals a capture of three photos sent through its link", async () => {
    placed = await Promise.all(SHARDS.map((shard) => organizationThroughTheFlow(shard)));
    expect(new Set(placed.map((p) => p.proof.id)).size).toBe(3);
  });

  it("each proof's public JSON, page and package answer, found by its id alone", async ({ skip }) => {
    if (placed.length === 0) return skip();
    for (const { proof } of placed) {
      const publicProof = await request(`${stack.baseUrl}/v1/public/proofs/${proof.id}`);
      expect(publicProof.status).toBe(200);
      expect(publicProof.body.verification).toMatchObject({ status: "valid", test_mode: true });
      const page = await fetch(`${stack.baseUrl}/p/${proof.id}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toContain(proof.id);
      const archive = await fetch(proof.package_url);
      expect(archive.status).toBe(200);
      const zip = new Uint8Array(await archive.arrayBuffer());
      expect(Buffer.from(zip.subarray(0, 4)).toString("hex")).toBe("504b0304");
    }
    // An id naming a shard this deployment does not have is unknown, like any other (never 5xx).
    expect((await request(`${stack.baseUrl}/v1/public/proofs/prf_zz${"0".repeat(20)}`)).status).toBe(404);
  });

  it("verify-by-hash finds a signed file of any shard from its SHA-256 alone", async ({ skip }) => {
    if (placed.length === 0) return skip();
    for (const { proof } of placed) {
      const signed: string = proof.files[0].signed_sha256;
      const found = await request(`${stack.baseUrl}/v1/public/verify`, { body: { sha256: signed } });
      expect(found.status).toBe(200);
      expect(found.body.data).toContainEqual(expect.objectContaining({ proof_id: proof.id, match: "signed" }));
    }
    // The signed bytes themselves, served from the third shard's proof, name it too.
    const { proof } = placed[2]!;
    const served = await fetch(`${stack.baseUrl}/v1/public/proofs/${proof.id}/files/${proof.files[0].id}`);
    expect(served.status).toBe(200);
    const signedBytes = new Uint8Array(await served.arrayBuffer());
    expect(sha256(signedBytes)).toBe(proof.files[0].signed_sha256);
    const byBytes = await fetch(`${stack.baseUrl}/v1/public/verify`, {
      method: "POST",
      headers: { "Content-Type": "application/octet-stream" },
      body: signedBytes,
    });
    expect(((await byBytes.json()) as any).data).toContainEqual(expect.objectContaining({ proof_id: proof.id, match: "signed" }));
  });

  it("a proof's rows are in its own shard's database and no other; another shard's key gets 404", async ({ skip }) => {
    if (placed.length === 0) return skip();
    for (const [index, { key }] of placed.entries()) {
      const other = placed[(index + 1) % placed.length]!;
      expect((await request(`${stack.baseUrl}/v1/proofs/${other.proof.id}`, { token: key })).status).toBe(404);
    }
    const organizations = quoted(placed.map((p) => p.organizationId));
    const proofs = quoted(placed.map((p) => p.proof.id as string));
    const sessions = quoted(placed.flatMap((p) => [p.proof.session_id as string, p.openSessionId]));
    // One wrangler run a shard, the three at once; the last statement readies the sweeps' test below: the
    // session left open is moved past its expiry, in its shard.
    const past = new Date(Date.now() - 60_000).toISOString();
    const read = await Promise.all(
      placed.map(({ shard, openSessionId }) =>
        onShardDatabase(shard.binding, [
          `SELECT id FROM organizations WHERE id IN (${organizations})`,
          `SELECT DISTINCT organization_id AS id FROM api_keys WHERE organization_id IN (${organizations})`,
          `SELECT id FROM capture_sessions WHERE id IN (${sessions}) ORDER BY id`,
          `SELECT id FROM proofs WHERE id IN (${proofs})`,
          // A sealed proof's files left no row (docs/adr/0065): none of them, in any shard.
          `SELECT DISTINCT proof_id AS id FROM files WHERE proof_id IN (${proofs})`,
          `SELECT DISTINCT organization_id AS id FROM events WHERE organization_id IN (${organizations})`,
          `UPDATE capture_sessions SET expires_at = '${past}' WHERE id = '${openSessionId}' RETURNING id`,
        ]),
      ),
    );
    for (const [index, own] of placed.entries()) {
      const ids = read[index]!.map((rows) => rows.map((row) => row.id));
      expect(ids).toEqual([
        [own.organizationId],
        [own.organizationId],
        [own.proof.session_id, own.openSessionId].sort(),
        [own.proof.id],
        [],
        [own.organizationId],
        [own.openSessionId],
      ]);
    }
    expiredInTheirShards = true;
  });

  it("the sweeps reach every shard: a session past its expiry on each is expired", async ({ skip }) => {
    if (!expiredInTheirShards) return skip();
    for (const { key, openSessionId } of placed) {
      await expect
        .poll(async () => (await request(`${stack.baseUrl}/v1/capture-sessions/${openSessionId}`, { token: key })).body.status, {
          timeout: 60_000,
          interval: 1000,
        })
        .toBe("expired");
    }
  });
});

/** A photo of ours as `captureOverHttp` sends it, chosen from the device's files. */
const photoOf = (bytes: Uint8Array, index: number) => ({
  file: `scene-${index}.jpg`,
  type: "image/jpeg",
  bytes: Buffer.from(bytes),
  capture: { method: "file", device_time: new Date().toISOString() },
});
const reencoded = VARIANTS["re-encoded at quality 60"]!;

/** Every item of a list, page by page of `limit`, following each next_cursor as a client does. */
async function everyPage(key: string, path: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const query = `limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const answer = await request(`${stack.baseUrl}${path}${path.includes("?") ? "&" : "?"}${query}`, { token: key });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.length).toBeLessThanOrEqual(limit);
    items.push(...answer.body.data);
    if (!answer.body.has_more) return items;
    cursor = answer.body.next_cursor;
  }
  throw new Error(`${path}: more than 50 pages`);
}

/**
 * ADR 0070 on `npm run dev`: an organization living on shard 00 is given shard 01 as its write shard by the
 * operator's command, between a before and its after. The after stays with its before on 00; a new session goes
 * to 01; lists, ids, the balance and the public side see one organization.
 */
describe("an organization switched to a second shard mid-flow", () => {
  const admin = () => ({ token: stack.adminToken });
  const reference = `switched-${Date.now()}`;
  const live = { mode: "live", rate_limit_per_minute: 1000 };
  const scenes: Uint8Array[] = [];
  let organizationId = "";
  let endpointId = "";
  let before: any;
  let switchedKey = "";
  let onWriteShard: any;
  let after: any;

  it("on its home shard 00, with a live key and a balance of 4, a before is sealed there", async () => {
    scenes.push(await scene(7001), await scene(7002));
    const organization = await request(`${stack.baseUrl}/admin/v1/organizations`, { ...admin(), body: { name: "Outgrown", shard: "00" } });
    expect(organization.status).toBe(201);
    organizationId = organization.body.id;
    const key = (await request(`${stack.baseUrl}/admin/v1/organizations/${organizationId}/api-keys`, { ...admin(), body: live })).body.key as string;
    const credited = await request(`${stack.baseUrl}/admin/v1/organizations/${organizationId}/balance`, { ...admin(), body: { amount: 4, reason: "e2e" } });
    expect(credited.body).toEqual({ balance: 4, available: 4 });
    const endpoint = await request(`${stack.baseUrl}/v1/webhook-endpoints`, { token: key, body: { url: HOOK, events: ["proof.sealed"] } });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.id;

    const { session, completed } = await captureOverHttp(stack, key, { external_reference: reference, party: "provider" }, [photoOf(scenes[0]!, 0)]);
    expect(session.id as string).toMatch(/^cps_00[0-9a-z]{20}$/);
    expect(completed.status).toBe(200);
    expect(completed.body.proof_id as string).toMatch(/^prf_00[0-9a-z]{20}$/);
    before = await waitForProof(stack, key, completed.body.proof_id, (p) => p.status !== "pending", 90_000, 1000);
    expect(before).toMatchObject({ status: "sealed", mode: "live" });
  });

  it("the operator's `npm run admin -- add-write-shard` sends its new period to shard 01", async ({ skip }) => {
    if (before === undefined) return skip();
    const { stdout } = await promisify(execFile)(
      "npm",
      ["run", "--silent", "admin", "--", "add-write-shard", organizationId, "--shard", "01", "--base-url", stack.baseUrl],
      { cwd: root, env: { ...process.env, ADMIN_TOKEN: stack.adminToken } },
    );
    expect(JSON.parse(stdout)).toEqual({ id: organizationId, shards: ["00", "01"], write_shard: "01" });
    // A key issued now reads the organization's shards at its first request: no wait for the 10 s key cache.
    switchedKey = (await request(`${stack.baseUrl}/admin/v1/organizations/${organizationId}/api-keys`, { ...admin(), body: live })).body.key;
    expect(switchedKey).toMatch(/^sk_live_00/);
  });

  it("a new session lands on 01 and is sealed there; the after of the 00 before lands on 00, paired across the switch", async ({ skip }) => {
    if (switchedKey === "") return skip();
    const { session, completed } = await captureOverHttp(stack, switchedKey, { external_reference: `${reference}-01`, party: "provider" }, [
      photoOf(await reencoded(scenes[0]!), 0),
      photoOf(scenes[1]!, 1),
    ]);
    expect(session.id as string).toMatch(/^cps_01[0-9a-z]{20}$/);
    expect(new URL(session.capture_url).pathname.split("/").pop()).toMatch(/^01[A-Za-z0-9_-]{43}$/);
    expect(completed.status).toBe(200);
    expect(completed.body.proof_id as string).toMatch(/^prf_01[0-9a-z]{20}$/);
    onWriteShard = await waitForProof(stack, switchedKey, completed.body.proof_id, (p) => p.status !== "pending", 90_000, 1000);
    expect(onWriteShard).toMatchObject({ status: "sealed", mode: "live", session_id: session.id });
    // Sealed on 01, the photo like the before's is found in the home shard's similarity index.
    expect(onWriteShard.files[0].signals).toContainEqual(expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: before.id }));

    const paired = await captureOverHttp(stack, switchedKey, { external_reference: reference, party: "provider", compare_to: before.id }, [
      photoOf(await reencoded(scenes[1]!), 0),
    ]);
    expect(paired.session.id as string).toMatch(/^cps_00[0-9a-z]{20}$/);
    expect(paired.completed.status).toBe(200);
    expect(paired.completed.body.proof_id as string).toMatch(/^prf_00[0-9a-z]{20}$/);
    after = await waitForProof(stack, switchedKey, paired.completed.body.proof_id, (p) => p.status !== "pending", 90_000, 1000);
    expect(after).toMatchObject({ status: "sealed", compare_to: before.id });
    // Sealed on 00, the photo like one of the 01 proof's is found in shard 01's similarity index.
    expect(after.files[0].signals).toContainEqual(expect.objectContaining({ code: "similar_to_earlier_photo", proof_id: onWriteShard.id }));

    const publicBefore = await request(`${stack.baseUrl}/v1/public/proofs/${before.id}`);
    const publicAfter = await request(`${stack.baseUrl}/v1/public/proofs/${after.id}`);
    expect(publicBefore.body).toMatchObject({ compare_to: null, compared_by: after.id });
    expect(publicAfter.body).toMatchObject({ compare_to: before.id, compared_by: null });
  });

  it("its lists merge both shards, paged by 1 and by 2: each proof and event once, newest first", async ({ skip }) => {
    if (after === undefined) return skip();
    const proofs = [after.id, onWriteShard.id, before.id];
    for (const limit of [1, 2]) expect((await everyPage(switchedKey, "/v1/proofs", limit)).map((proof) => proof.id)).toEqual(proofs);
    const events = await everyPage(switchedKey, "/v1/events", 100);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events.filter((event) => event.type === "proof.sealed").map((event) => event.data.proof_id)).toEqual(proofs);
    expect(events.filter((event) => event.type === "capture_session.completed").map((event) => event.data.proof_id)).toEqual(proofs);
    for (const limit of [1, 2]) expect(await everyPage(switchedKey, "/v1/events", limit)).toEqual(events);
  });

  it("each proof and session answers by its id, on whichever shard it lives", async ({ skip }) => {
    if (after === undefined) return skip();
    for (const proof of [before, onWriteShard, after]) {
      const read = await request(`${stack.baseUrl}/v1/proofs/${proof.id}`, { token: switchedKey });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(proof.id);
      const session = await request(`${stack.baseUrl}/v1/capture-sessions/${proof.session_id}`, { token: switchedKey });
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({ id: proof.session_id, status: "completed", proof_id: proof.id });
    }
  });

  it("its rows lie where their ids say, keys and endpoint home; one balance, 4 less its three sealed proofs, the 01 row negative by its one", async ({
    skip,
  }) => {
    if (after === undefined) return skip();
    const owned = (table: string) => `SELECT id FROM ${table} WHERE organization_id = '${organizationId}' ORDER BY id`;
    const statements = [
      `SELECT balance FROM organizations WHERE id = '${organizationId}'`,
      owned("capture_sessions"),
      owned("proofs"),
      owned("api_keys"),
      owned("webhook_endpoints"),
      `SELECT shard FROM organization_write_shards WHERE organization_id = '${organizationId}'`,
    ];
    const [home, write] = await Promise.all([onShardDatabase("DB", statements), onShardDatabase("DB_01", statements)]);
    const ids = (rows: Array<Record<string, unknown>> | undefined) => rows?.map((row) => row.id);
    expect(home![0]).toEqual([{ balance: 2 }]);
    expect(write![0]).toEqual([{ balance: -1 }]);
    expect(ids(home![1])).toEqual([before.session_id, after.session_id].sort());
    expect(ids(write![1])).toEqual([onWriteShard.session_id]);
    expect(ids(home![2])).toEqual([before.id, after.id].sort());
    expect(ids(write![2])).toEqual([onWriteShard.id]);
    expect(ids(home![3])).toHaveLength(2);
    expect(ids(write![3])).toEqual([]);
    expect(ids(home![4])).toEqual([endpointId]);
    expect(ids(write![4])).toEqual([]);
    expect(home![5]).toEqual([{ shard: "01" }]);
    expect(write![5]).toEqual([]);
    const read = await request(`${stack.baseUrl}/admin/v1/organizations/${organizationId}/balance`, { ...admin(), body: { amount: 0, reason: "read" } });
    expect(read.body).toEqual({ balance: 1, available: 1 });
    // The one unit left is spent by one session on 01, whatever each shard's row says alone.
    const create = () =>
      request(`${stack.baseUrl}/v1/capture-sessions`, {
        token: switchedKey,
        headers: { "Idempotency-Key": crypto.randomUUID() },
        body: { external_reference: `${reference}-open`, party: "provider" },
      });
    const open = await create();
    expect(open.status).toBe(201);
    expect(open.body.id as string).toMatch(/^cps_01/);
    // Its link opens the capture page and the view it reads (theme and template read home).
    const page = await fetch(open.body.capture_url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const view = await request(`${open.body.capture_url}/session`);
    expect(view.status).toBe(200);
    expect(view.body.files).toEqual([]);
    const refused = await create();
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe("insufficient_balance");
  });

  it("the endpoint registered home before the switch is sent the 01 proof's proof.sealed; its delivery is listed home", async ({ skip }) => {
    if (after === undefined) return skip();
    await expect
      .poll(() => delivered.filter((body) => body.event === "proof.sealed").map((body) => body.proof_id), { timeout: 60_000, interval: 500 })
      .toEqual(expect.arrayContaining([before.id, onWriteShard.id, after.id]));
    // Its attempt is recorded once the receiver has answered.
    await expect
      .poll(async () => (await everyPage(switchedKey, "/v1/webhook-deliveries", 2)).map((delivery) => delivery.status), { timeout: 30_000, interval: 500 })
      .toEqual(["succeeded", "succeeded", "succeeded"]);
    const deliveries = await everyPage(switchedKey, "/v1/webhook-deliveries", 2);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ endpoint_id: endpointId, event: "proof.sealed" });
      expect(delivery.id as string).toMatch(/^wdl_00/);
    }
    const events = await everyPage(switchedKey, "/v1/events?type=proof.sealed", 1);
    expect(deliveries.map((delivery) => delivery.event_id).sort()).toEqual(events.map((event) => event.id).sort());
  });

  it("the 01 proof's public JSON, page and package answer by its id; verify-by-hash finds its signed file", async ({ skip }) => {
    if (onWriteShard === undefined) return skip();
    const publicProof = await request(`${stack.baseUrl}/v1/public/proofs/${onWriteShard.id}`);
    expect(publicProof.status).toBe(200);
    expect(publicProof.body.verification).toMatchObject({ status: "valid", test_mode: false });
    const page = await fetch(`${stack.baseUrl}/p/${onWriteShard.id}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(onWriteShard.id);
    const archive = await fetch(onWriteShard.package_url);
    expect(archive.status).toBe(200);
    expect(Buffer.from(new Uint8Array(await archive.arrayBuffer()).subarray(0, 4)).toString("hex")).toBe("504b0304");
    const found = await request(`${stack.baseUrl}/v1/public/verify`, { body: { sha256: onWriteShard.files[1].signed_sha256 } });
    expect(found.status).toBe(200);
    expect(found.body.data).toContainEqual(expect.objectContaining({ proof_id: onWriteShard.id, match: "signed" }));
  });
});
