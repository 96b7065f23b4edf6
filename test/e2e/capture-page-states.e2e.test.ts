import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { useStackAndChromium } from "./support/stack-and-chromium.ts";
import { allUploaded, captureSession, viewfinderReady } from "./support/phone.ts";
import { accessibilityViolations, smallTouchTargets } from "./support/accessibility.ts";

/**
 * Every state of the capture page that issue 26 added, checked by axe-core (WCAG 2.1 A and AA) and for 44 px
 * touch targets, in a phone-sized Chromium: a deleted shot with its Undo, the Continue of a reload, a blocked
 * camera, the expired link with the shots kept, and the receipt.
 */
const e2e = useStackAndChromium();

async function clean(page: Page, state: string) {
  expect(await accessibilityViolations(page), state).toEqual([]);
  expect(await smallTouchTargets(page), state).toEqual([]);
}

async function phonePage(options: { camera?: "blocked" } = {}) {
  const context = await e2e.browser!.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, bypassCSP: true });
  await context.grantPermissions(["camera"], { origin: e2e.stack.captureBaseUrl });
  if (options.camera === "blocked")
    await context.addInitScript(() => {
      navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
    });
  return { context, page: await context.newPage() };
}

describe("the capture page's states, each accessible", () => {
  it("a deleted shot with its Undo, the Continue after a reload, the receipt", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const created = await captureSession(e2e.stack, { external_reference: `states-${Date.now()}`, party: "provider", locale: "en" });
    const { context, page } = await phonePage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(2);
    await page.getByTestId("delete").first().click();
    await page.getByTestId("undo").waitFor();
    await clean(page, "a deleted shot, with Undo");
    await allUploaded(page);
    await page.reload();
    await expect.poll(() => page.getByTestId("start").textContent(), { timeout: 10_000 }).toBe("Continue");
    await clean(page, "the welcome screen after a reload");
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    // The deletion was not undone before the reload: one shot is left, on the step the person was on.
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
    await page.getByTestId("finish").click();
    await page.getByTestId("receipt").waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("completion").innerText()).toMatch(/Reference\s+prf_/);
    // "Received and being sealed" once: the template's own completion text, not the page's as well.
    expect((await page.getByTestId("completion").innerText()).match(/being sealed|sealing/gi)?.length).toBe(1);
    await clean(page, "the completion with its receipt");
    await context.close();
  });

  it("a blocked camera, and the expired link with the shots kept", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const created = await captureSession(e2e.stack, { external_reference: `states-expired-${Date.now()}`, party: "provider", locale: "en" });
    const blocked = await phonePage({ camera: "blocked" });
    await blocked.page.goto(created.capture_url);
    await blocked.page.getByTestId("start").click();
    await blocked.page.getByTestId("camera-unavailable").waitFor();
    await clean(blocked.page, "the camera blocked");
    await blocked.context.close();

    const { context, page } = await phonePage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
    await page.evaluate(() => {
      const now = Date.now.bind(Date);
      Date.now = () => now() + 31 * 60_000;
    });
    await page.getByTestId("kept-shots").waitFor({ timeout: 10_000 });
    await clean(page, "the expired link");
    await context.close();
  });

  it("a black frame forced through the API, past the page, is sealed with the blank_frame signal (ADR 0041)", async () => {
    const black = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#000000" } })
      .jpeg()
      .toBuffer();
    const { completed } = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: `black-${Date.now()}`, party: "provider" }, [
      { file: "black.jpg", type: "image/jpeg", bytes: black },
      { file: "photo.jpg", type: "image/jpeg" },
    ]);
    expect(completed.status).toBe(200);
    const proof = await waitForProof(e2e.stack, e2e.stack.testKey, completed.body.proof_id, (candidate) => candidate.status !== "pending", 60_000);
    expect(proof.status).toBe("sealed");
    const codes = proof.files.map((file: { signals: { code: string }[] }) => file.signals.map((signal) => signal.code));
    expect(codes[0]).toContain("blank_frame");
    expect(codes[1]).not.toContain("blank_frame");
  });
});
