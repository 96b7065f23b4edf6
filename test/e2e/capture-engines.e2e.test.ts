import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import {
  PHONE,
  indexedDbStoresBlobs,
  waitFor,
  type Engine,
  type EngineName,
  type Launched,
  type PageOptions,
  type PhonePage,
} from "./support/engines/engine.ts";
import { launch as launchChromium } from "./support/engines/chromium.ts";
import { launch as launchFirefox } from "./support/engines/firefox.ts";
import { launch as launchWebkit } from "./support/engines/webkit.ts";
import { PAGE_MESSAGES } from "../../src/verification/page/messages.ts";

/**
 * The capture page as phones run it: each scenario is written once and runs in Chromium (Android), Firefox (Gecko)
 * and WebKitGTK (the engine of every iOS browser), at 390×844 with a fake camera, against one `npm run dev` stack.
 * Screenshots of each screen land in test/e2e/.screenshots/<engine>/ (git-ignored) for people to look at.
 */
const engines: Record<EngineName, () => Promise<Launched>> = { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebkit };
const screenshots = resolve(import.meta.dirname, ".screenshots");

let stack: Stack;
let templateId: string;

beforeAll(async () => {
  stack = await startStack();
  const template = await integratorCall(`${stack.baseUrl}/v1/capture-templates`, {
    name: "Parcel, two sides",
    welcome: { title: "Photos of your parcel" },
    steps: [
      { id: "front", label: "Front", instruction: "Photograph the front of the parcel", kind: "photo", min_count: 1, max_count: 2 },
      { id: "back", label: "Back", instruction: "Photograph the back of the parcel", kind: "photo", min_count: 1, max_count: 2 },
    ],
  });
  if (template.status !== 201) throw new Error(`template: ${JSON.stringify(template.body)}`);
  templateId = template.body.id;
});
afterAll(async () => {
  await stack?.stop();
});

/** One sealed proof whose verification page every engine opens (sealed once, over HTTP, on first use). */
let sealedProof: Promise<{ verification_url: string }> | undefined;
function sealedProofOnce() {
  sealedProof ??= captureOverHttp(stack, stack.testKey, { external_reference: `engines-page-${Date.now()}`, party: "recipient" }, [
    { file: "photo.jpg", type: "image/jpeg" },
  ]).then(({ completed }) => waitForProof(stack, stack.testKey, completed.body.proof_id, (proof) => proof.status !== "pending", 60_000, 1000));
  return sealedProof;
}

const shotCount = () => document.querySelectorAll('[data-testid="retake"]').length;
const offlineNotice = /offline|no connection|no network|no internet|connection (is )?lost|not connected/i;

/** An integrator's call with the demo test key: eighteen captures in a minute meet its rate limit, which is waited out. */
async function integratorCall(url: string, body?: unknown) {
  for (;;) {
    const answer = await request(url, { token: stack.testKey, ...(body === undefined ? {} : { body, headers: { "Idempotency-Key": crypto.randomUUID() } }) });
    if (answer.status !== 429) return answer;
    await new Promise((done) => setTimeout(done, Number(answer.headers.get("retry-after") ?? "1") * 1000));
  }
}

async function openCapture(page: PhonePage, scenario: string): Promise<{ id: string; capture_url: string }> {
  const created = await integratorCall(`${stack.baseUrl}/v1/capture-sessions`, {
    external_reference: `${page.engine}-${scenario}-${Date.now()}`,
    party: "recipient",
    locale: "en",
    template_id: templateId,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await page.open(created.body.capture_url);
  return created.body;
}

function screenshot(page: PhonePage, name: string) {
  mkdirSync(join(screenshots, page.engine), { recursive: true });
  return page.screenshot(join(screenshots, page.engine, `${name}.png`));
}

async function cameraReady(page: PhonePage) {
  await waitFor(page, "the camera's picture", () => [...document.querySelectorAll("video")].some((video) => video.videoWidth > 0));
}

async function takePhoto(page: PhonePage) {
  const before = await page.evaluate(shotCount);
  await page.click("shutter");
  await waitFor(page, "the new shot on screen", (count) => document.querySelectorAll('[data-testid="retake"]').length > count, before);
}

async function start(page: PhonePage, screens: boolean) {
  await waitFor(page, "the welcome screen", () => document.querySelector('[data-testid="start"]') !== null);
  if (screens) await screenshot(page, "1-welcome");
  await page.click("start");
  await cameraReady(page);
}

/** Finishes the capture and checks, through the API, that it became a sealed proof of one photo per step. */
async function finishToSealedProof(page: PhonePage, sessionId: string, screens: boolean) {
  await page.click("finish");
  if (screens) await screenshot(page, "5-sealing");
  await waitFor(page, "the completion screen", () => document.querySelector('[data-testid="completion"]') !== null, undefined, 45_000);
  if (screens) await screenshot(page, "6-completion");
  const session = await integratorCall(`${stack.baseUrl}/v1/capture-sessions/${sessionId}`);
  expect(session.body).toMatchObject({ status: "completed", proof_id: expect.stringMatching(/^prf_/) });
  // Polled once a second: the key's rate limit is shared by every scenario of the file.
  const proof = await waitForProof(stack, stack.testKey, session.body.proof_id, (candidate) => candidate.status !== "pending", 60_000, 1000);
  expect(proof, JSON.stringify(proof.failure)).toMatchObject({ status: "sealed" });
  expect(proof.files.map((file: { step_id: string }) => file.step_id).sort()).toEqual(["back", "front"]);
}

/** From the link to a sealed proof with the camera: one photo in each of the two steps. */
async function captureTwoSteps(page: PhonePage, sessionId: string, screens = false) {
  await start(page, screens);
  if (screens) await screenshot(page, "2-step-one");
  await takePhoto(page);
  if (screens) await screenshot(page, "3-step-one-shot");
  await page.click("next-step");
  await cameraReady(page);
  await takePhoto(page);
  if (screens) await screenshot(page, "4-step-two-shot");
  await finishToSealedProof(page, sessionId, screens);
}

for (const [name, launch] of Object.entries(engines) as [EngineName, () => Promise<Launched>][]) {
  describe(`the capture page in ${name} at 390×844 with a fake camera`, () => {
    let engine: Engine | undefined;
    let skipped = "";
    beforeAll(async () => {
      const launched = await launch();
      if ("skipped" in launched) {
        skipped = `${name} is not available: ${launched.skipped}`;
        console.warn(`\n!! SKIPPED: the capture page tests in ${name}. ${skipped}\n`);
      } else engine = launched;
    });
    afterAll(async () => {
      await engine?.close();
    });

    /** A scenario on a fresh page; the page must end it without any uncaught exception or unhandled rejection. */
    const scenario = (title: string, body: (page: PhonePage, engine: Engine) => Promise<void>, pageOptions?: (engine: Engine) => PageOptions) => {
      it(`${title}, with no uncaught error on the page`, async ({ skip }) => {
        if (!engine) return skip(skipped);
        const page = await engine.newPage(pageOptions?.(engine));
        try {
          await body(page, engine);
          expect(await page.pageErrors()).toEqual([]);
        } finally {
          await page.close();
        }
      });
    };

    it("drives a 390×844 page and sees its uncaught errors and unhandled rejections (so the checks below are not vacuous)", async ({ skip }) => {
      if (!engine) return skip(skipped);
      const page = await engine.newPage();
      try {
        await openCapture(page, "harness");
        expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([PHONE.width, PHONE.height]);
        await page.evaluate(() => {
          setTimeout(() => {
            throw new Error("harness check: uncaught");
          });
          void Promise.reject(new Error("harness check: unhandled"));
        });
        await expect
          .poll(async () => (await page.pageErrors()).join("\n"), { timeout: 5_000 })
          .toMatch(/harness check: uncaught[\s\S]*harness check: unhandled|harness check: unhandled[\s\S]*harness check: uncaught/);
      } finally {
        await page.close();
      }
    });

    scenario("takes a photo in each of two steps and goes from the link to a sealed proof", async (page) => {
      const created = await openCapture(page, "two-steps");
      await captureTwoSteps(page, created.id, true);
    });

    scenario("the element at the centre of the shutter is the shutter", async (page) => {
      await openCapture(page, "shutter");
      await start(page, false);
      const hit = await page.evaluate(() => {
        const shutter = document.querySelector('[data-testid="shutter"]')!;
        const box = shutter.getBoundingClientRect();
        const found = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (found && (found === shutter || shutter.contains(found))) return "the shutter";
        return found
          ? `<${found.tagName.toLowerCase()} id="${found.id}" class="${found.className}">`
          : `nothing (the shutter's centre is at ${box.left + box.width / 2},${box.top + box.height / 2})`;
      });
      expect(hit).toBe("the shutter");
    });

    const refusedFiles = [
      // A real GIF: the service takes JPEG, PNG, HEIC, WebP, MP4, MOV and WebM, not GIF.
      { name: "animation.gif", bytes: Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"), screen: "7-refused-file" },
      // What WebKit's MediaRecorder can produce here: nothing.
      { name: "empty.jpg", bytes: Buffer.alloc(0), screen: "7-refused-empty-file" },
    ];
    for (const refused of refusedFiles) {
      scenario(
        `shows the error of a refused file (${refused.name}, ${refused.bytes.length} bytes) with role=alert within seconds instead of hanging`,
        async (page) => {
          await openCapture(page, "refused-file");
          await start(page, false);
          const path = join(mkdtempSync(join(tmpdir(), "refused-")), refused.name);
          writeFileSync(path, refused.bytes);
          await page.setFiles("#file", path);
          await waitFor(
            page,
            "an error with role=alert",
            () => [...document.querySelectorAll('[role="alert"]')].some((alert) => alert.getClientRects().length > 0 && alert.textContent!.trim() !== ""),
            undefined,
            10_000,
          );
          await screenshot(page, refused.screen);
        },
      );
    }

    scenario(
      "captures and seals when IndexedDB refuses to store Blobs",
      async (page, engine) => {
        const created = await openCapture(page, "no-blob-storage");
        expect(await page.evaluate(indexedDbStoresBlobs), `${engine.name} should refuse Blobs in IndexedDB here`).toBe(false);
        await captureTwoSteps(page, created.id);
      },
      (engine) => ({ refuseBlobsInIndexedDb: !engine.refusesBlobsNatively }),
    );

    scenario(
      "opens a sealed proof's verification page at 360 px: the verdict in sight, nothing scrolls sideways",
      async (page) => {
        const proof = await sealedProofOnce();
        await page.open(`${proof.verification_url}?lang=de`);
        expect(await page.evaluate(() => window.innerWidth)).toBe(360);
        await waitFor(page, "the thumbnail", () => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
        const verdict = await page.evaluate(() => {
          const element = document.querySelector('[data-testid="verdict"]')!;
          const box = element.getBoundingClientRect();
          return { text: element.textContent, visible: box.width > 0 && box.top >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth };
        });
        expect(verdict).toEqual({ text: PAGE_MESSAGES.de.verdict_verified_test, visible: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
        await screenshot(page, "verification-page-de-360");
      },
      () => ({ width: 360 }),
    );

    scenario("offline when a shot is declared: shows an offline notice, then resumes by itself to a sealed proof", async (page) => {
      const created = await openCapture(page, "offline");
      await start(page, false);
      expect(await page.evaluate(() => document.body.innerText)).not.toMatch(offlineNotice);
      await page.setOffline(true);
      await takePhoto(page);
      await waitFor(page, "an offline notice", (pattern) => new RegExp(pattern, "i").test(document.body.innerText), offlineNotice.source, 20_000);
      await screenshot(page, "8-offline");
      // The cut is real in every engine: nothing reached the service while the page was offline.
      expect((await request(`${created.capture_url}/session`)).body.files).toEqual([]);
      await page.setOffline(false);
      // Nobody touches the page: it must send the shot by itself once the network is back.
      await expect
        .poll(
          async () => (await request(`${created.capture_url}/session`)).body.files.filter((file: { status: string }) => file.status === "uploaded").length,
          { timeout: 30_000, interval: 500 },
        )
        .toBe(1);
      await page.click("next-step");
      await cameraReady(page);
      await takePhoto(page);
      await finishToSealedProof(page, created.id, false);
    });
  });
}
