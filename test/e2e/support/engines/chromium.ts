import { existsSync } from "node:fs";
import { launchChromium, CHROMIUM_PATH } from "../chromium.ts";
import { PHONE, collectPageErrors, readPageErrors, refuseBlobsInIndexedDb, type Launched, type PhonePage } from "./engine.ts";

/** Debian's Chromium through playwright-core: a phone context (touch, mobile viewport) with a fake camera granted. */
export async function launch(): Promise<Launched> {
  if (!existsSync(CHROMIUM_PATH)) return { skipped: `${CHROMIUM_PATH} is not installed (apt-get install chromium)` };
  const browser = (await launchChromium())!;
  return {
    name: "chromium",
    refusesBlobsNatively: false,
    async newPage(options = {}): Promise<PhonePage> {
      const context = await browser.newContext({
        viewport: { width: options.width ?? PHONE.width, height: options.height ?? PHONE.height },
        isMobile: true,
        hasTouch: true,
      });
      await context.grantPermissions(["camera", "microphone"]);
      await context.addInitScript(collectPageErrors);
      if (options.refuseBlobsInIndexedDb) await context.addInitScript(refuseBlobsInIndexedDb);
      const page = await context.newPage();
      const nativeErrors: string[] = [];
      page.on("pageerror", (error) => nativeErrors.push(`pageerror: ${error.message}`));
      return {
        engine: "chromium",
        open: async (url) => void (await page.goto(url)),
        click: (testid) => page.locator(`[data-testid="${testid}"]:visible`).first().click({ timeout: 10_000 }),
        setFiles: (selector, path) => page.locator(selector).setInputFiles(path),
        evaluate: <R, A>(fn: (arg: A) => R | Promise<R>, arg?: A) => page.evaluate(fn, arg as A) as Promise<R>,
        screenshot: async (path) => void (await page.screenshot({ path })),
        setOffline: (offline) => context.setOffline(offline),
        pageErrors: async () => [...nativeErrors, ...(await page.evaluate(readPageErrors))],
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}
