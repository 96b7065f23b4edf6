import { describe, expect, it } from "vitest";
import { admin, callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";

describe("operator API", () => {
  it("refuses a missing or wrong admin token and API keys", async () => {
    const org = await createOrganization();
    for (const key of [undefined, "wrong", org.liveKey]) {
      const response = await callJson("/admin/v1/organizations", { key, body: { name: "x" } });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("unauthenticated");
    }
  });

  it("issues a key shown once and stored only as a hash", async () => {
    const org = await createOrganization();
    const created = await createKey(org.id, { mode: "live", name: "ops", rights: ["read_proof"] });
    // The organization's shard (00 here) follows the mode, then 32 random characters (src/auth/key-layout.ts).
    expect(created.key).toMatch(/^sk_live_00[A-Za-z0-9_-]{32}$/);
    expect(created.id).toMatch(/^key_00[0-9a-z]{20}$/);
    const { env } = await import("cloudflare:workers");
    const stored = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(created.id).first<Record<string, unknown>>();
    expect(JSON.stringify(stored)).not.toContain(created.key);
    // What tells keys apart without the key: mode, shard and 4 random characters.
    expect(stored?.key_prefix).toBe(created.key.slice(0, 14));
  });

  it("revokes a key: it fails with 401 from then on", async () => {
    const org = await createOrganization();
    const created = await createKey(org.id, { mode: "test" });
    expect((await callJson("/v1/me", { key: created.key })).status).toBe(200);
    const revoked = await callJson(`/admin/v1/api-keys/${created.id}`, { key: "test-admin-token-0123456789abcdef", method: "DELETE" });
    expect(revoked.status).toBe(204);
    const after = await callJson("/v1/me", { key: created.key });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("unauthenticated");
  });

  it("adjusts the balance up and down and reports what is available", async () => {
    const org = await createOrganization();
    const up = await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: 5, reason: "top-up" });
    expect(up).toMatchObject({ status: 200, body: { balance: 5, available: 5 } });
    const down = await admin(`/admin/v1/organizations/${org.id}/balance`, { amount: -2, reason: "correction" });
    expect(down.body).toEqual({ balance: 3, available: 3 });
  });

  it("answers 404 for an unknown organization or key", async () => {
    expect((await admin("/admin/v1/organizations/org_missing/api-keys", { mode: "test" })).status).toBe(404);
    expect((await admin("/admin/v1/api-keys/key_missing", undefined, "DELETE")).status).toBe(404);
  });
});
