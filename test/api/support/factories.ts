import { admin } from "./client.ts";

export interface TestOrganization {
  id: string;
  testKey: string;
  liveKey: string;
  testKeyId: string;
  liveKeyId: string;
}

/** A fresh organization with a test and a live key holding every right (storage is shared within a file). */
export async function createOrganization(options: { balance?: number; rateLimit?: number } = {}): Promise<TestOrganization> {
  const org = await admin("/admin/v1/organizations", { name: `Org ${crypto.randomUUID()}` });
  if (org.status !== 201) throw new Error(`organization: ${JSON.stringify(org.body)}`);
  const rate = options.rateLimit === undefined ? {} : { rate_limit_per_minute: options.rateLimit };
  const test = await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "test", ...rate });
  const live = await admin(`/admin/v1/organizations/${org.body.id}/api-keys`, { mode: "live", ...rate });
  if (options.balance) await admin(`/admin/v1/organizations/${org.body.id}/balance`, { amount: options.balance, reason: "test" });
  return { id: org.body.id, testKey: test.body.key, liveKey: live.body.key, testKeyId: test.body.id, liveKeyId: live.body.id };
}

export async function createKey(organizationId: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const created = await admin(`/admin/v1/organizations/${organizationId}/api-keys`, body);
  if (created.status !== 201) throw new Error(`key: ${JSON.stringify(created.body)}`);
  return created.body;
}
