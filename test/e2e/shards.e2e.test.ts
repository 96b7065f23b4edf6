import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";

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

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5" } });
});
afterAll(async () => {
  await stack?.stop();
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
