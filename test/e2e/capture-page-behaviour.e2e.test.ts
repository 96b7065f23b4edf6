import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { request } from "./support/http.ts";
import { useStackAndChromium } from "./support/stack-and-chromium.ts";
import { allUploaded, captureSession, phone, viewfinderReady } from "./support/phone.ts";

/** The capture page's own rules (issue 11), in a phone-sized Chromium: refusals, recordings, languages, location. */
const e2e = useStackAndChromium();

async function template(body: Record<string, unknown>): Promise<string> {
  const created = await request(`${e2e.stack.baseUrl}/v1/capture-templates`, {
    token: e2e.stack.testKey,
    body: { name: `tpl-${Date.now()}`, welcome: { title: "Photos" }, ...body },
  });
  if (created.status !== 201) throw new Error(`template: ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Page errors (uncaught exceptions and unhandled rejections) the page has had. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** A MediaRecorder that records nothing, as WebKitGTK's does here without an H.264 encoder. */
function emptyRecorder() {
  class EmptyRecorder extends EventTarget {
    static isTypeSupported = () => true;
    mimeType = "video/mp4";
    ondataavailable: ((event: { data: Blob }) => void) | null = null;
    onstop: (() => void) | null = null;
    start() {}
    stop() {
      setTimeout(() => this.onstop?.(), 10);
    }
  }
  (window as unknown as { MediaRecorder: unknown }).MediaRecorder = EmptyRecorder;
}

describe("the capture page's own rules", () => {
  it("shows a shot the server refuses at once, in the person's language, on its thumbnail, and never loops on Finish", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const created = await captureSession(e2e.stack, { external_reference: `refused-${Date.now()}`, party: "provider", locale: "fr" });
    const context = await phone(e2e.browser, e2e.stack);
    const page = await context.newPage();
    const errors = watchErrors(page);
    let completions = 0;
    page.on("request", (req) => void (req.url().endsWith("/complete") && completions++));
    // The second declaration is refused for good (a 4xx other than 408/429).
    let declarations = 0;
    await page.route("**/files", async (route) => {
      if (route.request().method() !== "POST" || ++declarations !== 2) return route.continue();
      await route.fulfill({
        status: 422,
        contentType: "application/problem+json",
        body: JSON.stringify({ status: 422, code: "file_too_large", title: "File too large" }),
      });
    });
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await allUploaded(page);
    await page.getByTestId("shutter").click();
    // Within seconds (the machine running the suite may be busy), not after Finish or never.
    await expect.poll(() => page.locator('[role="alert"]').first().textContent(), { timeout: 10_000 }).toContain("dépasse 25 Mo");
    await expect
      .poll(() => page.locator(".shot").evaluateAll((tiles) => tiles.map((tile) => (tile as HTMLElement).dataset.state)))
      .toEqual(["uploaded", "refused"]);
    // Finish says what to do instead of waiting for a shot that will never be sent.
    await page.getByTestId("finish").click();
    await expect.poll(() => page.locator('[role="alert"]').first().textContent()).toContain("Reprenez ou supprimez");
    expect(completions).toBe(0);
    await page.getByTestId("delete").nth(1).click();
    await expect.poll(() => page.locator(".shot").count()).toBe(1);
    await page.getByTestId("finish").click();
    await page.getByTestId("completion").waitFor({ timeout: 20_000 });
    expect(completions).toBe(1);
    // The proof is still being sealed when /complete answers: the page says the files were received, not sealed.
    const completionText = await page.getByTestId("completion").textContent();
    // Said once (the template's completion text has it), with a receipt.
    expect(completionText).toContain("ont été reçues et sont en cours de scellement");
    expect(completionText).not.toMatch(/sont scellées/);
    expect(completionText).toMatch(/Référence\s*prf_/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("refuses an empty recording on the phone, before declaring it", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const templateId = await template({ steps: [{ id: "walk", label: "Walk around", instruction: "Film every side", kind: "video", max_count: 1 }] });
    const created = await captureSession(e2e.stack, {
      external_reference: `empty-video-${Date.now()}`,
      party: "provider",
      locale: "en",
      template_id: templateId,
    });
    const context = await phone(e2e.browser, e2e.stack, { microphone: true });
    await context.addInitScript(emptyRecorder);
    const page = await context.newPage();
    const errors = watchErrors(page);
    let declarations = 0;
    page.on("request", (req) => void (req.url().endsWith("/files") && req.method() === "POST" && declarations++));
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await new Promise((done) => setTimeout(done, 1200));
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator('[role="alert"]').first().textContent(), { timeout: 5000 }).toContain("This video is empty: record it again");
    expect(await page.locator(".shot").count()).toBe(0);
    expect(declarations).toBe(0);
    // Not a dead end: the same alert offers to choose a file instead.
    await page.getByTestId("use-file").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("speaks the template's default language when the session's has no table, and says so in <html lang>", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const templateId = await template({
      default_locale: "de",
      welcome: { title: "Fotos der Übergabe" },
      steps: [{ id: "front", label: "Vorne", instruction: "Die Vorderseite" }],
    });
    const created = await captureSession(e2e.stack, { external_reference: `lang-${Date.now()}`, party: "provider", locale: "ja", template_id: templateId });
    const context = await phone(e2e.browser, e2e.stack, { locale: "en-US" });
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await expect.poll(() => page.getByTestId("start").textContent(), { timeout: 10_000 }).toBe("Starten");
    expect(await page.locator("html").getAttribute("lang")).toBe("de");
    // Nothing is focused on arrival, so no focus ring is drawn round anything.
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
    const icon = await fetch(new URL((await page.locator('link[rel="icon"]').getAttribute("href")) ?? "", created.capture_url));
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
    await icon.body?.cancel();
    await context.close();
  });

  it("asks for the location in context and goes on without it when the phone never answers", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const templateId = await template({ ask_location: true, steps: [{ id: "front", label: "Front", instruction: "The front" }] });
    const created = await captureSession(e2e.stack, { external_reference: `location-${Date.now()}`, party: "provider", locale: "en", template_id: templateId });
    const context = await phone(e2e.browser, e2e.stack);
    // A permission prompt nobody answers: the position never comes, nor any error.
    await context.addInitScript(() => {
      navigator.geolocation.getCurrentPosition = () => undefined;
    });
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await page.getByTestId("location-yes").click();
    await page.getByText("Waiting for your location").waitFor();
    await page.getByTestId("shutter").waitFor({ timeout: 25_000 });

    const again = await captureSession(e2e.stack, {
      external_reference: `location-skip-${Date.now()}`,
      party: "provider",
      locale: "en",
      template_id: templateId,
    });
    await page.goto(again.capture_url);
    await page.getByTestId("start").click();
    await page.getByTestId("location-yes").click();
    // "Continue without" stays available while waiting.
    await page.getByTestId("location-no").click();
    await page.getByTestId("shutter").waitFor({ timeout: 5000 });
    await context.close();
  });
});
