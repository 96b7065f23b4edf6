import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Debian's Chromium driven by playwright-core, or null (with a plain message) when it is not installed. */
export async function launchChromium(): Promise<Browser | null> {
  if (!existsSync(CHROMIUM_PATH)) {
    console.warn("Chromium not installed: the browser tests are skipped. Run `apt-get install chromium` to run them.");
    return null;
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}
