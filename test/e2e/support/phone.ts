import { expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Stack } from "./stack.ts";
import { request } from "./http.ts";

/** A phone-sized browser context; with `camera: "refused"` every getUserMedia call fails, as on a phone that denies it. */
export async function phone(
  browser: Browser,
  stack: Stack,
  options: { camera?: "granted" | "refused"; locale?: string; microphone?: boolean } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    ...(options.locale ? { locale: options.locale } : {}),
  });
  if (options.camera === "refused") {
    await context.addInitScript(() => {
      navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
    });
  } else {
    await context.grantPermissions(options.microphone ? ["camera", "microphone"] : ["camera"], { origin: stack.captureBaseUrl });
  }
  return context;
}

/** A capture session created with the demo test key, as an integrator would. */
export async function captureSession(stack: Stack, body: Record<string, unknown>): Promise<{ id: string; capture_url: string }> {
  const created = await request(`${stack.baseUrl}/v1/capture-sessions`, { token: stack.testKey, headers: { "Idempotency-Key": crypto.randomUUID() }, body });
  if (created.status !== 201) throw new Error(`session: ${JSON.stringify(created.body)}`);
  return created.body;
}

export const viewfinderReady = (page: Page) =>
  page.waitForFunction(() => ((document.querySelector("video.viewfinder") as HTMLVideoElement | null)?.videoWidth ?? 0) > 0);

/** Waits until the page's overall progress bar says every shot is stored. */
export const allUploaded = (page: Page, timeout = 15_000) =>
  expect.poll(() => page.getByTestId("progress-overall").evaluate((p: HTMLProgressElement) => p.value >= p.max && p.max > 1), { timeout }).toBe(true);
