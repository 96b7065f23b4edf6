import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { waitFor, type EngineName, type Launched, type PhonePage } from "./support/engines/engine.ts";
import { launch as launchChromium } from "./support/engines/chromium.ts";
import { launch as launchFirefox } from "./support/engines/firefox.ts";
import { launch as launchWebkit } from "./support/engines/webkit.ts";
import { MESSAGES } from "../../public/capture/messages.js";

/**
 * The capture screen at arm's length (issue 26): in the three engines, on a small, a common and a tall phone held
 * upright and on a phone held sideways, for the built-in template (one step) and a three-step one, the viewfinder
 * takes at least 60 % of the height upright and lies wholly in view beside the controls sideways; the shutter never
 * touches Next or Back in any language the page speaks. Screenshots in test/e2e/.screenshots/layout/<engine>/.
 */
const engines: Record<EngineName, () => Promise<Launched>> = { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebkit };
const screenshots = resolve(import.meta.dirname, ".screenshots", "layout");
const SIZES = [
  { width: 320, height: 568 },
  { width: 360, height: 740 },
  { width: 390, height: 844 },
  { width: 844, height: 390 },
  { width: 768, height: 1024 },
  { width: 1024, height: 768 },
] as const;
/** Arabic, right to left, where its mirror matters most: sideways and on tablets (upright phones: page-languages). */
const ARABIC_SIZES = [
  { width: 844, height: 390 },
  { width: 768, height: 1024 },
  { width: 1024, height: 768 },
] as const;
/** Shutter and Next (or Back) keep at least this much apart: a slightly-off tap must not hit the other. */
const MIN_GAP_PX = 4;

let stack: Stack;
let threeSteps: string;

beforeAll(async () => {
  stack = await startStack();
  const created = await request(`${stack.baseUrl}/v1/capture-templates`, {
    token: stack.testKey,
    body: {
      name: "Vehicle, three sides",
      welcome: { title: "Photos of the vehicle" },
      steps: ["front", "side", "back"].map((id) => ({
        id,
        label: { en: `The ${id}`, fr: `Côté ${id}`, es: `Lado ${id}`, de: `Seite ${id}` },
        instruction: "Stand three metres away and get the whole vehicle in the picture, wheels included.",
        kind: "photo",
        min_count: 1,
        max_count: 3,
      })),
    },
  });
  if (created.status !== 201) throw new Error(`template: ${JSON.stringify(created.body)}`);
  threeSteps = created.body.id;
});
afterAll(async () => {
  await stack?.stop();
});

async function newCapture(page: PhonePage, templateId: string | null, locale = "en") {
  for (;;) {
    const created = await request(`${stack.baseUrl}/v1/capture-sessions`, {
      token: stack.testKey,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      body: { external_reference: `layout-${page.engine}-${Date.now()}`, party: "provider", locale, ...(templateId ? { template_id: templateId } : {}) },
    });
    if (created.status === 429) {
      await new Promise((done) => setTimeout(done, Number(created.headers.get("retry-after") ?? "1") * 1000));
      continue;
    }
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await page.open(created.body.capture_url);
    return created.body as { id: string; capture_url: string };
  }
}

const cameraReady = (page: PhonePage) =>
  waitFor(page, "the camera's picture", () => ((document.querySelector("video.viewfinder") as HTMLVideoElement | null)?.videoWidth ?? 0) > 0);

/**
 * The controls' words in another language, as the page writes them (the page's CSP allows no script from the
 * test to switch its language, and a session per language would multiply the runs by ten).
 */
function relabel(words: { next: string; finish: string; back: string; shutter: string; expiry: string }) {
  const next = document.querySelector("#next")!;
  next.textContent = next.getAttribute("data-testid") === "finish" ? words.finish : words.next;
  const back = document.querySelector('[data-testid="back"]');
  if (back?.lastChild) back.lastChild.textContent = words.back;
  document.querySelector('[data-testid="shutter"]')?.setAttribute("aria-label", words.shutter);
  document.querySelector("#expiry")!.textContent = words.expiry;
  return new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)));
}

/** The boxes that matter on a capture screen, as the page lays them out now. */
function measure() {
  const box = (selector: string) => {
    const element = document.querySelector(selector);
    if (!element || element.getClientRects().length === 0) return null;
    const { left, top, right, bottom } = element.getBoundingClientRect();
    return { left, top, right, bottom };
  };
  return {
    viewport: { width: window.innerWidth, height: window.innerHeight },
    scrollWidth: document.documentElement.scrollWidth,
    frame: box('[data-testid="frame"]'),
    shutter: box('[data-testid="shutter"]'),
    next: box("#next"),
    back: box('[data-testid="back"]'),
    expiry: box("#expiry"),
    /** Whether the expiry's words run past its box (cut off where the column is narrow). */
    expiryCut: ((line) => line !== null && line.scrollWidth > line.clientWidth + 1)(document.querySelector("#expiry")),
    nextText: document.querySelector("#next")?.textContent ?? "",
  };
}
/**
 * One shot on the step on screen. This file measures the layout, not the shutter (capture-engines does): a tap that
 * WebKitGTK lost under load (seen once in a few runs, late in the file, never alone) is tapped again once.
 */
async function shoot(page: PhonePage) {
  const shots = () => document.querySelectorAll(".shot").length >= 1;
  await page.click("shutter");
  try {
    await waitFor(page, "a shot on this step", shots, undefined, 15_000);
  } catch {
    await page.click("shutter");
    await waitFor(page, "a shot on this step, tapped again", shots, undefined, 15_000);
  }
}

/** Whether the last shot's thumbnail decodes to a picture rather than a black frame. */
async function shotIsPicture() {
  const image = [...document.querySelectorAll<HTMLImageElement>(".shot img")].at(-1);
  if (!image) return false;
  await image.decode().catch(() => undefined);
  const canvas = document.createElement("canvas");
  canvas.width = 64;
  canvas.height = 48;
  const context = canvas.getContext("2d", { willReadFrequently: true })!;
  context.drawImage(image, 0, 0, 64, 48);
  const { data } = context.getImageData(0, 0, 64, 48);
  let sum = 0;
  for (let i = 0; i < data.length; i += 4) sum += (data[i]! + data[i + 1]! + data[i + 2]!) / 3;
  return sum / (data.length / 4) >= 16;
}
type Box = { left: number; top: number; right: number; bottom: number };
/** The distance between two boxes (0 when they touch, negative when they overlap). */
const gap = (a: Box, b: Box) => Math.max(b.left - a.right, a.left - b.right, b.top - a.bottom, a.top - b.bottom);

for (const [name, launch] of Object.entries(engines) as [EngineName, () => Promise<Launched>][]) {
  describe(`the capture screen's layout in ${name}`, () => {
    for (const size of SIZES) {
      const sideways = size.width > size.height;
      for (const template of ["built-in", "three steps"] as const) {
        it(`${size.width}×${size.height}, ${template}: the viewfinder ${sideways ? "wholly in view beside the controls" : "takes ≥ 60 % of the height"}, and the shutter never touches Next or Back in ${Object.keys(MESSAGES).length} languages`, async ({
          skip,
        }) => {
          // A browser of its own for each size: WebKitGTK's session carried state from one page to the next here
          // (a shot that never came after several sizes in one session, every time; alone, never).
          const launched = await launch();
          if ("skipped" in launched) {
            console.warn(`\n!! SKIPPED: the capture layout tests in ${name}. ${launched.skipped}\n`);
            return skip(launched.skipped);
          }
          const page = await launched.newPage(size);
          try {
            await newCapture(page, template === "built-in" ? null : threeSteps);
            await page.click("start");
            await cameraReady(page);
            const folder = join(screenshots, name);
            mkdirSync(folder, { recursive: true });
            if (template === "three steps") {
              // The middle step: Back, the shutter and Next all on screen, with a shot taken.
              await shoot(page);
              await page.click("next-step");
              await cameraReady(page);
            }
            await shoot(page);
            // A real picture, not a black one (WebKitGTK's copies of its mock camera's frames came out black).
            await waitFor(page, "the shot's picture, not black", shotIsPicture, undefined, 10_000);
            const tag = `${size.width}x${size.height}-${template.replace(" ", "-")}`;
            await page.screenshot(join(folder, `${tag}-en.png`));
            for (const language of Object.keys(MESSAGES)) {
              const words = (MESSAGES as Record<string, Record<string, string>>)[language]!;
              const expiry = words.validUntil!.replace("{time}", "23:35");
              await page.evaluate(relabel, { next: words.next!, finish: words.finish!, back: words.back!, shutter: words.shutter!, expiry });
              const layout = await page.evaluate(measure);
              const what = `${name} ${tag} ${language}: ${JSON.stringify(layout)}`;
              const { viewport, frame, shutter, next } = layout;
              expect(frame && shutter && next, what).toBeTruthy();
              // Nothing wider than the screen: Chromium's phone viewport widens to fit wider content (and zooms out), the
              // other engines scroll sideways (scrollWidth).
              if (name === "chromium") expect(viewport.width, what).toBe(size.width);
              expect(layout.scrollWidth, what).toBeLessThanOrEqual(viewport.width);
              // Wholly in view, the link's expiry too (sideways, in the narrow column).
              for (const element of [frame!, shutter!, next!, ...(layout.back ? [layout.back] : []), ...(layout.expiry ? [layout.expiry] : [])]) {
                expect(element.top, what).toBeGreaterThanOrEqual(0);
                expect(element.left, what).toBeGreaterThanOrEqual(0);
                expect(element.bottom, what).toBeLessThanOrEqual(viewport.height + 0.5);
                expect(element.right, what).toBeLessThanOrEqual(viewport.width + 0.5);
              }
              if (sideways) {
                // The controls beside the picture, not under it; the picture keeps most of the height.
                expect(Math.min(shutter!.left, next!.left), what).toBeGreaterThanOrEqual(frame!.right);
                expect(frame!.bottom - frame!.top, what).toBeGreaterThanOrEqual(0.85 * viewport.height);
              } else {
                expect((frame!.bottom - frame!.top) / viewport.height, what).toBeGreaterThanOrEqual(0.6);
              }
              expect(layout.expiryCut, what).toBe(false);
              expect(gap(shutter!, next!), what).toBeGreaterThanOrEqual(MIN_GAP_PX);
              if (layout.back) expect(gap(shutter!, layout.back), what).toBeGreaterThanOrEqual(MIN_GAP_PX);
              if (language === "de" || language === "es") await page.screenshot(join(folder, `${tag}-${language}.png`));
            }
            expect(await page.pageErrors()).toEqual([]);
          } finally {
            await page.close();
            await launched.close();
          }
        });
      }
    }
  });
}

for (const [name, launch] of Object.entries(engines) as [EngineName, () => Promise<Launched>][]) {
  describe(`the capture screen in Arabic, right to left, in ${name}`, () => {
    for (const size of ARABIC_SIZES) {
      const sideways = size.width > size.height;
      for (const template of ["built-in", "three steps"] as const) {
        it(`${size.width}×${size.height}, ${template}: mirrored, the viewfinder ${sideways ? "wholly in view with the controls on its left" : "takes ≥ 60 % of the height"}, nothing overflows`, async ({
          skip,
        }) => {
          const launched = await launch();
          if ("skipped" in launched) {
            console.warn(`\n!! SKIPPED: the capture layout tests in ${name}. ${launched.skipped}\n`);
            return skip(launched.skipped);
          }
          const page = await launched.newPage(size);
          try {
            await newCapture(page, template === "built-in" ? null : threeSteps, "ar");
            const folder = join(screenshots, name);
            mkdirSync(folder, { recursive: true });
            const tag = `${size.width}x${size.height}-${template.replace(" ", "-")}`;
            await waitFor(page, "the welcome screen", () => document.querySelector('[data-testid="start"]') !== null);
            expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(["ar", "rtl"]);
            await page.screenshot(join(folder, `${tag}-ar-welcome.png`));
            // The template's texts run in their own direction: its English (no Arabic given) left to right, its full
            // stop at the end; the built-in template's Arabic right to left.
            const own = template === "built-in" ? "rtl" : "ltr";
            expect(await page.evaluate(() => getComputedStyle(document.querySelector("main h1")!).direction)).toBe(own);
            await page.click("start");
            await cameraReady(page);
            if (template === "three steps") {
              await shoot(page);
              await page.click("next-step");
              await cameraReady(page);
            }
            await shoot(page);
            await waitFor(page, "the shot's picture, not black", shotIsPicture, undefined, 10_000);
            await page.screenshot(join(folder, `${tag}-ar.png`));
            const directions = () => [...document.querySelectorAll(".frame-top h1, .frame-top .instruction")].map((text) => getComputedStyle(text).direction);
            expect(await page.evaluate(directions)).toEqual([own, own]);
            // The link's time in Western digits, as Intl writes `ar` in Chromium and Firefox (ADR 0047); WebKitGTK's
            // ICU wrote Arabic-Indic ones until the page asked for Western.
            const expiry = await page.evaluate(() => document.querySelector('[data-testid="expiry"]')!.textContent);
            expect(expiry).toMatch(/\d{1,2}:\d{2}/);
            expect(expiry).not.toMatch(/[\u0660-\u0669\u06f0-\u06f9]/);
            const layout = await page.evaluate(measure);
            const what = `${name} ${tag} ar: ${JSON.stringify(layout)}`;
            const { viewport, frame, shutter, next } = layout;
            expect(frame && shutter && next, what).toBeTruthy();
            if (name === "chromium") expect(viewport.width, what).toBe(size.width);
            expect(layout.scrollWidth, what).toBeLessThanOrEqual(viewport.width);
            for (const element of [frame!, shutter!, next!, ...(layout.back ? [layout.back] : []), ...(layout.expiry ? [layout.expiry] : [])]) {
              expect(element.top, what).toBeGreaterThanOrEqual(0);
              expect(element.left, what).toBeGreaterThanOrEqual(0);
              expect(element.bottom, what).toBeLessThanOrEqual(viewport.height + 0.5);
              expect(element.right, what).toBeLessThanOrEqual(viewport.width + 0.5);
            }
            if (sideways) {
              // Mirrored: the picture on the right, the controls in the column on its left.
              expect(Math.max(shutter!.right, next!.right), what).toBeLessThanOrEqual(frame!.left);
              expect(frame!.bottom - frame!.top, what).toBeGreaterThanOrEqual(0.85 * viewport.height);
            } else {
              expect((frame!.bottom - frame!.top) / viewport.height, what).toBeGreaterThanOrEqual(0.6);
              // Mirrored: forward is to the left, so Next lies left of the shutter (and Back right of it).
              expect(next!.right, what).toBeLessThan(shutter!.left);
            }
            expect(gap(shutter!, next!), what).toBeGreaterThanOrEqual(MIN_GAP_PX);
            if (layout.back) expect(gap(shutter!, layout.back), what).toBeGreaterThanOrEqual(MIN_GAP_PX);
            expect(await page.pageErrors()).toEqual([]);
          } finally {
            await page.close();
            await launched.close();
          }
        });
      }
    }
  });
}
