import { describe, expect, it } from "vitest";
import { useStackAndChromium } from "./support/stack-and-chromium.ts";
import { captureSession, viewfinderReady } from "./support/phone.ts";
import { accessibilityViolations, smallTouchTargets } from "./support/accessibility.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";

const e2e = useStackAndChromium();

describe("accessibility, checked by axe-core (WCAG 2.1 A and AA) at 360 px", () => {
  it("the capture page: welcome, then a step with a shot taken", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const created = await captureSession(e2e.stack, { external_reference: `a11y-${Date.now()}`, party: "provider", locale: "fr" });
    const context = await e2e.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, bypassCSP: true });
    await context.grantPermissions(["camera"], { origin: e2e.stack.captureBaseUrl });
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await smallTouchTargets(page)).toEqual([]);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await smallTouchTargets(page)).toEqual([]);
    await context.close();
  });

  it("the verification page", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const { completed } = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: `a11y-proof-${Date.now()}`, party: "recipient" }, [
      { file: "photo.jpg", type: "image/jpeg" },
    ]);
    const proof = await waitForProof(e2e.stack, e2e.stack.testKey, completed.body.proof_id, (p) => p.status !== "pending");
    const context = await e2e.browser.newContext({ viewport: { width: 360, height: 740 }, bypassCSP: true, locale: "de-DE" });
    const page = await context.newPage();
    await page.goto(proof.verification_url);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await smallTouchTargets(page)).toEqual([]);
    // The technical details, opened: identifiers with their copy buttons (and the roots' fingerprints); a file's capture facts, opened.
    await page.getByTestId("technical").locator("summary").click();
    await page.locator(".file-facts summary").first().click();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await smallTouchTargets(page)).toEqual([]);
    await context.close();
  });

  it("the pages that explain an unknown link or proof", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const context = await e2e.browser.newContext({ viewport: { width: 360, height: 740 }, bypassCSP: true, locale: "es-ES" });
    const page = await context.newPage();
    await page.goto(`${e2e.stack.captureBaseUrl}/c/${"z".repeat(43)}`);
    await page.getByTestId("error").waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goto(`${e2e.stack.baseUrl}/p/prf_unknown`);
    expect(await accessibilityViolations(page)).toEqual([]);
    await context.close();
  });
});
