import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, sendShots, waitForProof } from "./support/capture.ts";
import {
  PHONE,
  indexedDbStoresBlobs,
  useEngine,
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
/**
 * A test key of the demo organization with room for the whole file: its scenarios poll proofs once a second, which
 * alone is the 60 requests a minute of the demo key, and waiting out that limit made one scenario outlast five minutes.
 */
let key: string;

beforeAll(async () => {
  stack = await startStack();
  const me = await request(`${stack.baseUrl}/v1/me`, { token: stack.testKey });
  const issued = await request(`${stack.baseUrl}/admin/v1/organizations/${me.body.organization.id}/api-keys`, {
    token: stack.adminToken,
    body: { mode: "test", name: "capture engines e2e", rate_limit_per_minute: 2000 },
  });
  if (issued.status !== 201) throw new Error(`key: ${JSON.stringify(issued.body)}`);
  key = issued.body.key;
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
  sealedProof ??= captureOverHttp(stack, key, { external_reference: `engines-page-${Date.now()}`, party: "recipient" }, [
    { file: "photo.jpg", type: "image/jpeg" },
  ]).then(({ completed }) => waitForProof(stack, key, completed.body.proof_id, (proof) => proof.status !== "pending", 60_000, 1000));
  return sealedProof;
}

const shotCount = () => document.querySelectorAll('[data-testid="retake"]').length;
const stepHeading = () => document.querySelector(".frame-top h1")?.textContent ?? "";
const ending = () => {
  const screen = document.querySelector<HTMLElement>('[data-testid="ending"]');
  return screen ? { kind: screen.dataset.ending, title: screen.querySelector("h1")?.textContent, text: screen.innerText } : null;
};
/** Moves the page's clock on (every timer of the page reads Date.now). */
const clockForward = (ms: number) => {
  const w = window as unknown as { __clockOffset?: number };
  if (w.__clockOffset === undefined) {
    const now = Date.now.bind(Date);
    w.__clockOffset = 0;
    Date.now = () => now() + (w.__clockOffset ?? 0);
  }
  w.__clockOffset += ms;
};
/** A camera that sees nothing: a black picture, as with a covered lens. */
const blackCamera = () => {
  const canvas = document.createElement("canvas");
  canvas.width = 640;
  canvas.height = 480;
  const context = canvas.getContext("2d")!;
  const paint = () => {
    context.fillStyle = "#000";
    context.fillRect(0, 0, canvas.width, canvas.height);
  };
  paint();
  setInterval(paint, 100);
  navigator.mediaDevices.getUserMedia = async () => (canvas as HTMLCanvasElement & { captureStream(rate: number): MediaStream }).captureStream(10);
};
const uploadedOnServer = async (captureUrl: string) =>
  (await request(`${captureUrl}/session`)).body.files.filter((file: { status: string }) => file.status === "uploaded").length;
const offlineNotice = /offline|no connection|no network|no internet|connection (is )?lost|not connected/i;

/** An integrator's call with the file's key; a 429 is still waited out, as any client must. */
async function integratorCall(url: string, body?: unknown) {
  for (;;) {
    const answer = await request(url, { token: key, ...(body === undefined ? {} : { body, headers: { "Idempotency-Key": crypto.randomUUID() } }) });
    if (answer.status !== 429) return answer;
    await new Promise((done) => setTimeout(done, Number(answer.headers.get("retry-after") ?? "1") * 1000));
  }
}

async function openCapture(page: PhonePage, scenario: string, fields: Record<string, unknown> = {}): Promise<{ id: string; capture_url: string }> {
  const created = await integratorCall(`${stack.baseUrl}/v1/capture-sessions`, {
    external_reference: `${page.engine}-${scenario}-${Date.now()}`,
    party: "recipient",
    locale: "en",
    ...(fields.compare_to ? {} : { template_id: templateId }),
    ...fields,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await page.open(created.body.capture_url);
  return created.body;
}

function screenshot(page: PhonePage, name: string) {
  mkdirSync(join(screenshots, page.engine), { recursive: true });
  return page.screenshot(join(screenshots, page.engine, `${name}.png`));
}

/**
 * Reloads the page as the person would, then waits for the new document: a check made before it would pass on the
 * old page, and the reload would then land in the middle of the scenario's next step.
 */
async function reloadFromPage(page: PhonePage) {
  await page.evaluate(() => {
    (window as unknown as { __beforeReload?: boolean }).__beforeReload = true;
    setTimeout(() => location.reload(), 50);
  });
  await waitFor(page, "the reloaded page", () => !(window as unknown as { __beforeReload?: boolean }).__beforeReload && document.readyState === "complete");
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
  const proof = await waitForProof(stack, key, session.body.proof_id, (candidate) => candidate.status !== "pending", 60_000, 1000);
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
    const used = useEngine(name, launch, "the capture page tests");

    /**
     * A scenario on a fresh page; the page must end it without any uncaught exception or unhandled rejection.
     */
    const scenario = (title: string, body: (page: PhonePage, engine: Engine) => Promise<void>, pageOptions?: (engine: Engine) => PageOptions) => {
      it(`${title}, with no uncaught error on the page`, async ({ skip }) => {
        const engine = used.engine;
        if (!engine) return skip(used.skipped);
        const page = await engine.newPage(pageOptions?.(engine));
        try {
          await body(page, engine);
          expect(await page.pageErrors()).toEqual([]);
        } finally {
          await page.close();
        }
      }, 180_000);
    };

    it("drives a 390×844 page and sees its uncaught errors and unhandled rejections (so the checks below are not vacuous)", async ({ skip }) => {
      const engine = used.engine;
      if (!engine) return skip(used.skipped);
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

    scenario("Back and a reload mid-capture resume at the step, with Continue, and end in one proof of every shot", async (page) => {
      const created = await openCapture(page, "resume");
      await start(page, false);
      await takePhoto(page);
      await page.click("next-step");
      await cameraReady(page);
      await takePhoto(page);
      // The browser's Back (a swipe, the system's button): the previous step, its shot still there.
      await page.evaluate(() => history.back());
      await waitFor(page, "the first step again", (heading) => document.querySelector(".frame-top h1")?.textContent === heading, "Front");
      expect(await page.evaluate(shotCount)).toBe(1);
      await page.evaluate(() => history.forward());
      await waitFor(page, "the second step again", (heading) => document.querySelector(".frame-top h1")?.textContent === heading, "Back");
      await expect.poll(() => uploadedOnServer(created.capture_url), { timeout: 30_000, interval: 500 }).toBe(2);
      await reloadFromPage(page);
      await waitFor(page, "Continue after the reload", () => document.querySelector('[data-testid="start"]')?.textContent === "Continue", undefined, 20_000);
      await screenshot(page, "9-resume-continue");
      await page.click("start");
      await waitFor(page, "the step the person was on", (heading) => document.querySelector(".frame-top h1")?.textContent === heading, "Back");
      expect(await page.evaluate(stepHeading)).toBe("Back");
      expect(await page.evaluate(shotCount)).toBe(1);
      await finishToSealedProof(page, created.id, false);
    });

    scenario("refuses a black frame on the phone with a re-take prompt, and keeps it only when asked to", async (page) => {
      await openCapture(page, "black-frame");
      await page.evaluate(blackCamera);
      await start(page, false);
      await page.click("shutter");
      await waitFor(page, "the black-frame prompt", () => document.querySelector('[data-testid="keep-anyway"]') !== null, undefined, 15_000);
      expect(await page.evaluate(() => document.querySelector('[role="alert"]')?.textContent)).toMatch(/black/i);
      expect(await page.evaluate(shotCount)).toBe(0);
      await screenshot(page, "10-black-frame");
      await page.click("keep-anyway");
      await waitFor(page, "the shot kept deliberately", () => document.querySelectorAll('[data-testid="retake"]').length === 1);
      // Deleting has an Undo.
      await page.click("delete");
      await waitFor(page, "the shot gone, with Undo", () => document.querySelectorAll('[data-testid="retake"]').length === 0);
      await screenshot(page, "11-deleted-undo");
      await page.click("undo");
      await waitFor(page, "the shot back", () => document.querySelectorAll('[data-testid="retake"]').length === 1);
    });

    scenario("shows the link's expiry, warns five minutes before, then says why it stopped and keeps the shots", async (page) => {
      await openCapture(page, "expiry");
      await start(page, false);
      expect(await page.evaluate(() => document.querySelector('[data-testid="expiry"]')?.textContent)).toMatch(/valid until/i);
      await takePhoto(page);
      await page.evaluate(clockForward, 26 * 60_000);
      await waitFor(page, "the five-minute warning", () => /expires at .*finish now/i.test(document.querySelector("#notice")?.textContent ?? ""));
      await screenshot(page, "12-expiry-warning");
      await page.evaluate(clockForward, 5 * 60_000);
      await waitFor(page, "the expired screen", () => document.querySelector('[data-testid="ending"]') !== null);
      const shown = await page.evaluate(ending);
      const organization = (await request(`${stack.baseUrl}/v1/me`, { token: key })).body.organization?.name ?? "Demo organization";
      expect(shown).toMatchObject({ kind: "expired", title: "This link has expired" });
      expect(shown!.text).toMatch(/nothing was sent for sealing/);
      expect(shown!.text).toContain(`Ask ${organization} for a new link.`);
      expect(await page.evaluate(() => document.querySelectorAll('[data-testid="kept-shots"] a[download]').length)).toBe(1);
      await screenshot(page, "13-expired");
    });

    scenario('an "after" shows its before\'s shots, and a losing "after" says it was not accepted, then and after a reload', async (page) => {
      const reference = `${page.engine}-pair-${Date.now()}`;
      // The before, over HTTP.
      const beforeSession = await integratorCall(`${stack.baseUrl}/v1/capture-sessions`, {
        external_reference: reference,
        party: "recipient",
        template_id: templateId,
      });
      await sendShots(beforeSession.body.capture_url, [
        { file: "photo.jpg", type: "image/jpeg", step: "front" },
        { file: "photo.jpg", type: "image/jpeg", step: "back" },
      ]);
      const beforeProof = (await request(`${beforeSession.body.capture_url}/complete`, { body: {} })).body.proof_id;
      await waitForProof(stack, key, beforeProof, (proof) => proof.status === "sealed", 60_000, 1000);
      const after = { external_reference: reference, party: "recipient", compare_to: beforeProof };
      const loser = await openCapture(page, "pair", after);
      const winner = await integratorCall(`${stack.baseUrl}/v1/capture-sessions`, after);
      await sendShots(winner.body.capture_url, [
        { file: "photo.jpg", type: "image/jpeg", step: "front" },
        { file: "photo.jpg", type: "image/jpeg", step: "back" },
      ]);
      expect((await request(`${winner.body.capture_url}/complete`, { body: {} })).status).toBe(200);
      await start(page, false);
      await waitFor(page, "the before's shot, loaded", () =>
        [...document.querySelectorAll<HTMLImageElement>('[data-testid="before-shots"] img')].some((image) => image.complete && image.naturalWidth > 0),
      );
      await page.click("ghost");
      await waitFor(page, "the ghost over the viewfinder", () => document.querySelector<HTMLElement>("#ghost")?.hidden === false);
      await screenshot(page, "14-after-before-shots");
      await takePhoto(page);
      await page.click("next-step");
      await cameraReady(page);
      await takePhoto(page);
      await page.click("finish");
      await waitFor(page, "the refusal", () => document.querySelector('[data-testid="ending"]') !== null, undefined, 45_000);
      for (const moment of ["at once", "after a reload"]) {
        const shown = await page.evaluate(ending);
        expect(shown, moment).toMatchObject({ kind: "error", title: "Capture not accepted" });
        expect(shown!.text, moment).toMatch(/not accepted and nothing was sealed/);
        expect(shown!.text, moment).toMatch(/can tell you what happens next/);
        expect(shown!.text, moment).not.toMatch(/thank|complete|received/i);
        await screenshot(page, `15-after-not-accepted-${moment.replace(/ /g, "-")}`);
        if (moment === "at once") {
          await reloadFromPage(page);
          await waitFor(
            page,
            "the refusal again",
            () => document.querySelector('[data-testid="ending"] h1')?.textContent === "Capture not accepted",
            undefined,
            20_000,
          );
        }
      }
      expect((await integratorCall(`${stack.baseUrl}/v1/capture-sessions/${loser.id}`)).body).toMatchObject({ status: "rejected", proof_id: null });
    });

    scenario("says the camera is blocked, how to allow it, and offers to try again or choose a file", async (page) => {
      await openCapture(page, "camera-blocked");
      // The page's own script first: a camera refused before it has loaded would not be the one it asks.
      await waitFor(page, "the welcome screen", () => document.querySelector('[data-testid="start"]') !== null);
      await page.evaluate(() => {
        navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
      });
      await page.click("start");
      await waitFor(page, "the blocked camera's explanation", () => document.querySelector('[data-testid="camera-unavailable"]') !== null);
      const text = await page.evaluate(() => document.querySelector('[data-testid="camera-unavailable"]')!.textContent);
      expect(text).toMatch(/blocked/);
      expect(text).toMatch(/allow the camera/);
      expect(await page.evaluate(() => ["camera-retry", "use-file"].map((id) => document.querySelector(`[data-testid="${id}"]`) !== null))).toEqual([
        true,
        true,
      ]);
      await screenshot(page, "16-camera-blocked");
    });

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
