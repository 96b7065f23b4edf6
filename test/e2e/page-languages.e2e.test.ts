import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { useStackAndChromium } from "./support/stack-and-chromium.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { captureSession, phone, viewfinderReady } from "./support/phone.ts";
import { MESSAGES } from "../../public/capture/messages.js";
import { waitFor, type EngineName, type Launched } from "./support/engines/engine.ts";
import { launch as launchFirefox } from "./support/engines/firefox.ts";
import { launch as launchWebkit } from "./support/engines/webkit.ts";
import { PAGE_MESSAGES } from "../../src/verification/page/messages.ts";

/**
 * Both pages in the six languages issue 26 adds, on a 360 px phone in Chromium: each speaks its language,
 * Arabic lays out right to left (the title at the right, identifiers still left to right) and nothing
 * scrolls sideways. Screenshots in test/e2e/.screenshots/languages/ (welcome, step, verification page).
 */
const NEW_LANGUAGES = ["pt-BR", "it", "nl", "pl", "zh-Hans", "ar"] as const;
const screenshots = resolve(import.meta.dirname, ".screenshots", "languages");
const e2e = useStackAndChromium();
let verificationUrl: string;

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  const shots = [1, 2].map(() => ({ file: "photo.jpg", type: "image/jpeg" }));
  const { completed } = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: `languages-${Date.now()}`, party: "provider" }, shots);
  const proof = await waitForProof(e2e.stack, e2e.stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 60_000);
  expect(proof.status).toBe("sealed");
  verificationUrl = proof.verification_url;
}, 120_000);

/** How far the document reaches past the viewport's right or left edge, in CSS pixels (0: no sideways scroll). */
const overflow = (page: Page) =>
  page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth);

/** The first heading's box against the viewport: in a right-to-left page it hugs the right edge. */
const headingSides = (page: Page, selector: string) =>
  page.evaluate((heading) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(heading)!);
    const box = range.getBoundingClientRect();
    return { left: box.left, right: document.documentElement.clientWidth - box.right };
  }, selector);

/**
 * Whether the page's font draws two characters differently: a missing glyph is the same empty box for both
 * ("tofu"). Chinese needs a CJK font on the machine (CI: fonts-droid-fallback); DejaVu Sans covers Arabic.
 */
const drawnApart = (page: Page, first: string, second: string) =>
  page.evaluate(
    ([a, b]) => {
      const pixels = (text: string) => {
        const canvas = document.createElement("canvas");
        canvas.width = canvas.height = 48;
        const context = canvas.getContext("2d")!;
        context.font = `32px ${getComputedStyle(document.body).fontFamily}`;
        context.fillText(text, 4, 36);
        return context.getImageData(0, 0, 48, 48).data.join();
      };
      return pixels(a!) !== pixels(b!);
    },
    [first, second],
  );

/** A machine without a CJK font (.ci/run installs fonts-droid-fallback) draws Chinese as boxes: that check then waits. */
const CJK_FONT = (spawnSync("fc-list", [":lang=zh", "family"], { encoding: "utf8" }).stdout ?? "").trim() !== "";

describe("the six new languages on a 360 px phone (issue 26)", () => {
  it("the capture page speaks each one, Arabic right to left, with nothing scrolling sideways", async ({ skip }) => {
    if (!e2e.browser) return skip();
    for (const lang of NEW_LANGUAGES) {
      const session = await captureSession(e2e.stack, { external_reference: `languages-${lang}-${Date.now()}`, party: "provider", locale: lang });
      const context = await phone(e2e.browser, e2e.stack);
      const page = await context.newPage();
      await page.goto(session.capture_url);
      await expect.poll(() => page.locator("html").getAttribute("lang"), { timeout: 10_000 }).toBe(lang);
      expect(await page.locator("html").getAttribute("dir"), lang).toBe(lang === "ar" ? "rtl" : "ltr");
      const start = page.getByTestId("start");
      await start.waitFor();
      expect(await start.textContent(), lang).toBe(MESSAGES[lang].start);
      expect(await overflow(page), `${lang} welcome`).toBeLessThanOrEqual(0);
      if (lang === "zh-Hans" && CJK_FONT) expect(await drawnApart(page, "拍", "摄"), "Chinese drawn, not boxes").toBe(true);
      if (lang === "ar") expect(await drawnApart(page, "خ", "م"), "Arabic drawn, not boxes").toBe(true);
      await page.screenshot({ path: `${screenshots}/capture-welcome-${lang}.png`, fullPage: true });
      await start.click();
      const shutter = page.getByTestId("shutter");
      await shutter.waitFor();
      await viewfinderReady(page);
      await shutter.click();
      await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
      expect(await overflow(page), `${lang} step`).toBeLessThanOrEqual(0);
      if (lang === "ar") {
        // Mirrored: the shutter's label and the step counter read from the right; the shutter sits in the dock as in English.
        expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe("rtl");
        const counter = await page.locator("#steps-label").boundingBox();
        if (counter) expect(counter.x + counter.width).toBeGreaterThan(360 - 48);
      }
      await page.screenshot({ path: `${screenshots}/capture-step-${lang}.png` });
      await context.close();
    }
  });

  it("the verification page speaks each one, Arabic right to left with identifiers left to right, nothing scrolling sideways", async ({ skip }) => {
    if (!e2e.browser) return skip();
    for (const lang of NEW_LANGUAGES) {
      const context = await e2e.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      await page.goto(`${verificationUrl}?lang=${lang}`);
      expect(await page.locator("h1").textContent(), lang).toBe(PAGE_MESSAGES[lang].title);
      expect(await page.getByTestId("verdict").textContent(), lang).toBe(PAGE_MESSAGES[lang].verdict_verified_test);
      // Every fold open: the technical details' hashes and the command are the widest things on the page.
      await page.evaluate(() => {
        for (const details of document.querySelectorAll("details")) details.open = true;
      });
      expect(await overflow(page), lang).toBeLessThanOrEqual(0);
      const sides = await headingSides(page, "h1");
      if (lang === "ar") {
        expect(sides.right, "the Arabic title starts at the right").toBeLessThan(40);
        expect(sides.left).toBeGreaterThan(40);
        expect(await page.locator("#proof-id").evaluate((code) => getComputedStyle(code).direction)).toBe("ltr");
        expect(await page.locator("#command").evaluate((code) => getComputedStyle(code).direction)).toBe("ltr");
      } else {
        expect(sides.left, lang).toBeLessThan(40);
      }
      await page.screenshot({ path: `${screenshots}/verification-${lang}.png`, fullPage: true });
      await context.close();
    }
  });

  const engines: Record<Exclude<EngineName, "chromium">, () => Promise<Launched>> = { firefox: launchFirefox, webkit: launchWebkit };
  for (const [name, launch] of Object.entries(engines)) {
    it(`${name}: both pages in Arabic lay out right to left at 360 px with nothing scrolling sideways`, async ({ skip }) => {
      const engine = await launch();
      if ("skipped" in engine) {
        console.warn(`${name} skipped: ${engine.skipped}`);
        return skip();
      }
      try {
        const page = await engine.newPage({ width: 360, height: 740 });
        const layout = () => {
          for (const details of document.querySelectorAll("details")) details.open = true;
          const heading = document.querySelector("h1, h2")!.getBoundingClientRect();
          return {
            dir: document.documentElement.dir,
            direction: getComputedStyle(document.body).direction,
            overflow: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth,
            headingRight: document.documentElement.clientWidth - heading.right,
            idDirection: document.querySelector("#proof-id") ? getComputedStyle(document.querySelector("#proof-id")!).direction : null,
          };
        };
        const session = await captureSession(e2e.stack, { external_reference: `languages-ar-${name}-${Date.now()}`, party: "provider", locale: "ar" });
        await page.open(session.capture_url);
        await waitFor(page, "the welcome screen", () => document.querySelector('[data-testid="start"]') !== null);
        const capture = await page.evaluate(layout);
        expect(capture).toMatchObject({ dir: "rtl", direction: "rtl" });
        expect(capture.overflow).toBeLessThanOrEqual(0);
        expect(capture.headingRight, "the welcome title at the right").toBeLessThan(40);
        await page.screenshot(`${screenshots}/capture-welcome-ar-${name}.png`);
        await page.open(`${verificationUrl}?lang=ar`);
        await waitFor(page, "the verdict", () => document.querySelector('[data-testid="verdict"]') !== null);
        const verification = await page.evaluate(layout);
        expect(verification).toMatchObject({ dir: "rtl", direction: "rtl", idDirection: "ltr" });
        expect(verification.overflow).toBeLessThanOrEqual(0);
        expect(verification.headingRight, "the title at the right").toBeLessThan(40);
        await page.screenshot(`${screenshots}/verification-ar-${name}.png`);
      } finally {
        await engine.close();
      }
    });
  }
});
