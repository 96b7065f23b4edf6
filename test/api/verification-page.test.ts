import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { setSessionSnapshot } from "./support/template-snapshots.ts";

const SNAPSHOT = JSON.stringify({
  default_locale: "en",
  steps: [
    { id: "front", label: { en: "Front of the car", fr: "Avant du véhicule", de: "Fahrzeugfront" } },
    { id: "photos", label: "Interior" },
  ],
});

async function proofWithSnapshot(organizationId: string) {
  const inserted = await insertPendingProof(organizationId, "test", 2);
  await setSessionSnapshot(inserted.sessionId, SNAPSHOT);
  await env.DB.prepare("UPDATE files SET step_id = 'front' WHERE id = ?").bind(inserted.fileIds[0]).run();
  return inserted;
}

async function page(path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { headers });
  return { response, html: await response.text() };
}

describe("the verification page /p/{id}", () => {
  it("labels each step in the reader's language, in the template's order, with strict headers", async () => {
    const org = await createOrganization();
    const { proofId } = await proofWithSnapshot(org.id);
    const french = await page(`/p/${proofId}`, { "Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5" });
    expect(french.response.status).toBe(200);
    expect(french.response.headers.get("Content-Language")).toBe("fr");
    expect(french.response.headers.get("X-Robots-Tag")).toBe("noindex");
    expect(french.response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(french.html).toContain('<html lang="fr">');
    expect(french.html.indexOf("Avant du véhicule")).toBeGreaterThan(0);
    expect(french.html.indexOf("Avant du véhicule")).toBeLessThan(french.html.indexOf("Interior"));
    expect((await page(`/p/${proofId}?lang=de`)).html).toContain("Fahrzeugfront");
    expect((await page(`/p/${proofId}`, { "Accept-Language": "es" })).html).toContain("Front of the car");
  });

  it("shows a before/after pair side by side, step by step, each side linking to its own proof", async () => {
    const org = await createOrganization();
    const before = await proofWithSnapshot(org.id);
    const after = await proofWithSnapshot(org.id);
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(after.proofId, before.proofId).run();
    await env.DB.prepare("UPDATE proofs SET compare_to = ? WHERE id = ?").bind(before.proofId, after.proofId).run();
    for (const viewed of [before.proofId, after.proofId]) {
      const { html } = await page(`/p/${viewed}?lang=en`);
      const front = html.slice(html.indexOf('data-testid="step-front"'), html.indexOf('data-testid="step-photos"'));
      const beforeSide = front.indexOf('data-side="before"');
      const afterSide = front.indexOf('data-side="after"');
      expect(beforeSide).toBeGreaterThan(0);
      expect(afterSide).toBeGreaterThan(beforeSide);
      expect(front.slice(beforeSide, afterSide)).toContain(`/p/${before.proofId}?lang=en`);
      expect(front.slice(beforeSide, afterSide)).toContain(before.fileIds[0]);
      expect(front.slice(afterSide)).toContain(`/p/${after.proofId}?lang=en`);
      expect(front.slice(afterSide)).toContain(after.fileIds[0]);
      const partner = viewed === before.proofId ? after.proofId : before.proofId;
      expect(html).toMatch(new RegExp(`data-testid="compared-with"><a href="/p/${partner}\\?lang=en">`));
    }
  });

  it("explains a proof still being sealed, and one that failed, without offering a package", async () => {
    const org = await createOrganization();
    const { proofId } = await proofWithSnapshot(org.id);
    const pending = await page(`/p/${proofId}?lang=en`);
    expect(pending.response.status).toBe(200);
    expect(pending.response.headers.get("Cache-Control")).toBe("no-store");
    expect(pending.html).toContain("This proof is being sealed.");
    expect(pending.html).not.toContain('data-testid="download"');
    await env.DB.prepare("UPDATE proofs SET status = 'failed', failure_code = 'file_corrupt', failure_message = 'x' WHERE id = ?").bind(proofId).run();
    const failed = await page(`/p/${proofId}?lang=fr`);
    expect(failed.response.status).toBe(200);
    expect(failed.html).toContain('class="verdict failed"');
    expect(failed.html).not.toContain('data-testid="download"');
  });

  it("answers an unknown proof with 404: a translated page for a browser, proof_not_found for a program", async () => {
    const { status, body } = await callJson("/p/prf_unknown");
    expect(status).toBe(404);
    expect(body.code).toBe("proof_not_found");
    const browser = await page("/p/prf_unknown", { Accept: "text/html,application/xhtml+xml", "Accept-Language": "de" });
    expect(browser.response.status).toBe(404);
    expect(browser.response.headers.get("Content-Type")).toContain("text/html");
    expect(browser.html).toContain("Nachweis nicht gefunden");
    expect(browser.html).toContain('data-code="proof_not_found"');
  });
});
