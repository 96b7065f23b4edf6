import { existsSync } from "node:fs";
import puppeteer from "puppeteer-core";
import { PHONE, collectPageErrors, readPageErrors, refuseBlobsInIndexedDb, testCardCamera, type Launched, type PhonePage } from "./engine.ts";

export const FIREFOX_PATH = "/usr/bin/firefox-esr";

/**
 * Debian's Firefox ESR over WebDriver BiDi (puppeteer-core), with Gecko's fake camera and no permission prompt;
 * its flat-coloured picture is replaced by a test card (engine.ts), as a real camera films something.
 */
export async function launch(): Promise<Launched> {
  if (!existsSync(FIREFOX_PATH)) return { skipped: `${FIREFOX_PATH} is not installed (apt-get install firefox-esr)` };
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX_PATH,
    headless: true,
    extraPrefsFirefox: { "media.navigator.streams.fake": true, "media.navigator.permission.disabled": true },
  });
  return {
    name: "firefox",
    refusesBlobsNatively: false,
    async newPage(options = {}): Promise<PhonePage> {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: options.width ?? PHONE.width, height: options.height ?? PHONE.height });
      await page.evaluateOnNewDocument(collectPageErrors);
      await page.evaluateOnNewDocument(testCardCamera);
      if (options.refuseBlobsInIndexedDb) await page.evaluateOnNewDocument(refuseBlobsInIndexedDb);
      const nativeErrors: string[] = [];
      page.on("pageerror", (error) => nativeErrors.push(`pageerror: ${error instanceof Error ? error.message : String(error)}`));
      return {
        engine: "firefox",
        open: async (url) => void (await page.goto(url)),
        click: (testid) => page.locator(`[data-testid="${testid}"]`).setTimeout(10_000).click(),
        setFiles: async (selector, path) => {
          const input = await page.waitForSelector(selector, { timeout: 10_000 });
          await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(path);
        },
        evaluate: <R, A>(fn: (arg: A) => R | Promise<R>, arg?: A) => page.evaluate(fn, arg as A) as Promise<R>,
        screenshot: async (path) => void (await page.screenshot({ path: path as `${string}.png` })),
        setOffline: (offline) => page.setOfflineMode(offline),
        pageErrors: async () => [...nativeErrors, ...(await page.evaluate(readPageErrors))],
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}
