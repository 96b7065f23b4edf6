import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { startStack, type Stack } from "./support/stack.ts";
import { launchChromium } from "./support/chromium.ts";
import { request } from "./support/http.ts";
import { allUploaded, captureSession, viewfinderReady } from "./support/phone.ts";
import { shardBindingName, shardOfId } from "../../src/db/shards.ts";

/**
 * The capture link's expiry as the server decides it, not the page's clock. The API gives every session 30
 * minutes (the specification's default; creation takes no shorter lifetime, and the service has no hook to
 * shorten one), so half-way through a capture this file moves the session's stored expiry into the past in
 * the local database, as `wrangler d1 execute --local` lets a developer do: what 30 minutes would do. The
 * phone's clock does not move: the page learns of the expiry from the server's answers.
 * (libfaketime cannot move the server's clock instead: preloaded into workerd, it deadlocks in tcmalloc's
 * start-up, before `workerd --version` prints.)
 */
const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "capture-expiry-"));
const running = {} as { stack: Stack; browser: Browser | null };

beforeAll(async () => {
  running.stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: "5" } });
  running.browser = await launchChromium();
});

afterAll(async () => {
  await running.browser?.close();
  await running.stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** Sets a session's expiry in its shard's local D1 (docs/adr/0062), through wrangler as a developer would. */
function expireInLocalDatabase(sessionId: string, at: Date) {
  execFileSync(
    join(root, "node_modules/.bin/wrangler"),
    [
      "d1",
      "execute",
      shardBindingName(shardOfId(sessionId)),
      "--local",
      "--persist-to",
      join(stateDir, "state"),
      "--command",
      `UPDATE capture_sessions SET expires_at = '${at.toISOString()}' WHERE id = '${sessionId}'`,
    ],
    { cwd: root, env: { ...process.env, CI: "true" }, stdio: "pipe" },
  );
}

describe("a capture link past its expiry on the server's clock", () => {
  it("the API refuses the page's uploads with 410 capture_link_expired, and the page says so and keeps the shots", async ({ skip }) => {
    if (!running.browser) return skip();
    const { stack, browser } = running;
    const createdAt = Date.now();
    const created = await captureSession(stack, { external_reference: `expiry-${createdAt}`, party: "provider", locale: "en" });
    const session = (await request(`${stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: stack.testKey })).body;
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(30 * 60_000);
    const token = new URL(created.capture_url).pathname.split("/").pop()!;
    const capture = `${stack.captureBaseUrl}/c/${token}`;

    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await context.grantPermissions(["camera"], { origin: stack.captureBaseUrl });
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
    await allUploaded(page);

    expireInLocalDatabase(created.id, new Date(Date.now() - 1000));
    // Past its expiry: every route behind the link refuses, with who to ask.
    expect((await request(`${capture}/session`)).status).toBe(410);
    const refused = await request(`${capture}/files`, {
      body: { step_id: "photos", content_type: "image/jpeg", size: 1000, sha256: "a".repeat(64) },
    });
    expect(refused.status).toBe(410);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body).toMatchObject({ status: 410, code: "capture_link_expired", organization_name: expect.any(String) });
    expect((await request(`${capture}/complete`, { body: {} })).body).toMatchObject({ status: 410, code: "capture_link_expired" });

    // The page still counts some 29 minutes left: the next shot's declaration is what learns of the expiry.
    expect(await page.getByTestId("expiry").textContent()).toMatch(/valid until/i);
    await page.getByTestId("shutter").click();
    await page.getByTestId("ending").waitFor({ timeout: 20_000 });
    const ending = page.getByTestId("ending");
    expect(await ending.getAttribute("data-ending")).toBe("expired");
    const text = await ending.innerText();
    expect(text).toContain("This link has expired");
    expect(text).toMatch(/nothing was sent for sealing/);
    expect(text).toMatch(/Ask .+ for a new link\./);
    expect(await page.locator('[data-testid="kept-shots"] a[download]').count()).toBe(2);
    expect(await page.locator("video.viewfinder").count()).toBe(0);

    // A reload gets the same answer from the server, with the shots still on the phone.
    await page.reload();
    await page.getByTestId("ending").waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("ending").getAttribute("data-ending")).toBe("expired");
    expect(await page.locator('[data-testid="kept-shots"] a[download]').count()).toBe(2);
    await context.close();

    // The sweep records the session as expired for the integrator (asked once a second: the key's rate limit
    // would refuse vitest's default poll of every 50 ms within the sweep's 5 s).
    await expect
      .poll(async () => (await request(`${stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: stack.testKey })).body.status, {
        timeout: 30_000,
        interval: 1_000,
      })
      .toBe("expired");
  });
});
