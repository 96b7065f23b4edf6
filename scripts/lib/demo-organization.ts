import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { AdminClient } from "./admin-client.ts";

export interface DemoOrganization {
  organizationId: string;
  testKey: string;
  liveKey: string;
}

async function keyWorks(baseUrl: string, key: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
  await response.body?.cancel();
  return response.status === 200;
}

/** Seeds the demo organization once per local database; later runs reuse it while its keys still work. */
export async function ensureDemoOrganization(admin: AdminClient, file: string): Promise<DemoOrganization> {
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as DemoOrganization;
    if ((await keyWorks(admin.baseUrl, saved.testKey)) && (await keyWorks(admin.baseUrl, saved.liveKey))) return saved;
  }
  const organization = await admin.createOrganization("Demo organization");
  const test = await admin.createApiKey(organization.id, { mode: "test", name: "demo test key" });
  const live = await admin.createApiKey(organization.id, { mode: "live", name: "demo live key" });
  await admin.adjustBalance(organization.id, 100, "demo seed");
  const demo = { organizationId: organization.id, testKey: test.key, liveKey: live.key };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
