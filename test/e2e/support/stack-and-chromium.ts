import { afterAll, beforeAll } from "vitest";
import type { Browser } from "playwright-core";
import { startStack, type Stack } from "./stack.ts";
import { launchChromium } from "./chromium.ts";

/** What a browser test file runs against; set once the file's first `beforeAll` has run. */
export interface StackAndChromium {
  stack: Stack;
  /** null when Chromium is not installed: the browser tests skip themselves. */
  browser: Browser | null;
}

/**
 * Starts one `npm run dev` stack and one Chromium before the file's tests and stops both after them. Call it
 * at the top of the file, before the file's own hooks, which then find both started.
 */
export function useStackAndChromium(): StackAndChromium {
  const running = {} as StackAndChromium;
  beforeAll(async () => {
    running.stack = await startStack();
    running.browser = await launchChromium();
  });
  afterAll(async () => {
    await running.browser?.close();
    await running.stack?.stop();
  });
  return running;
}
