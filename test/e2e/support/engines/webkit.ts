import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { Builder, By, type WebDriver, type WebElement } from "selenium-webdriver";
import { freePort } from "../stack.ts";
import { PHONE, collectPageErrors, readPageErrors, refuseBlobsInIndexedDb, simulateOffline, testCardCamera, type Launched, type PhonePage } from "./engine.ts";

export const WEBKIT_DRIVER_PATH = "/usr/bin/WebKitWebDriver";
export const MINIBROWSER_PATH = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const IPHONE_USER_AGENT =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1";

/** A private X server for MiniBrowser; resolves with its display once it accepts clients. */
function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  return new Promise((done, fail) => {
    let errors = "";
    xvfb.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    xvfb.stdio[3]!.once("data", (chunk: Buffer) => done({ display: `:${chunk.toString().trim()}`, process: xvfb }));
    xvfb.once("exit", (code) => fail(new Error(`Xvfb exited (${code}): ${errors}`)));
  });
}

async function waitForDriver(url: string, driver: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode})`);
    if (
      await fetch(`${url}/status`).then(
        (answer) => answer.ok,
        () => false,
      )
    )
      return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error("WebKitWebDriver did not answer");
}

/**
 * WebKitGTK (the engine of every iOS browser) through WebKitWebDriver and MiniBrowser under a private Xvfb, with
 * mock capture devices and an iPhone user agent. MiniBrowser's window cannot be narrower than its toolbar (about
 * 447 px), but `--full-screen` hides the toolbar: the window is then resized to exactly 390×844 CSS pixels, so no
 * zoom is needed and WebDriver's element clicks land where a finger would. One session serves every page, one at
 * a time (a session is ephemeral like a private tab: IndexedDB refuses Blobs in it).
 */
export async function launch(): Promise<Launched> {
  for (const [path, pkg] of [
    [WEBKIT_DRIVER_PATH, "webkit2gtk-driver"],
    [MINIBROWSER_PATH, "libwebkit2gtk-4.1-0"],
    ["/usr/bin/Xvfb", "xvfb"],
  ] as const) {
    if (!existsSync(path)) return { skipped: `${path} is not installed (apt-get install ${pkg})` };
  }
  const xvfb = await startXvfb();
  const port = await freePort();
  const driverProcess = spawn(WEBKIT_DRIVER_PATH, [`--port=${port}`], { env: { ...process.env, DISPLAY: xvfb.display }, stdio: "ignore" });
  const stopProcesses = () => {
    driverProcess.kill();
    xvfb.process.kill();
  };
  let driver: WebDriver;
  try {
    await waitForDriver(`http://127.0.0.1:${port}`, driverProcess);
    driver = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({
        browserName: "MiniBrowser",
        "webkitgtk:browserOptions": {
          binary: MINIBROWSER_PATH,
          args: ["--automation", "--full-screen", "--enable-media-stream=true", "--enable-mock-capture-devices=true", `--user-agent=${IPHONE_USER_AGENT}`],
        },
      })
      .build();
    await driver
      .manage()
      .window()
      .setRect({ x: 0, y: 0, ...PHONE });
  } catch (error) {
    stopProcesses();
    throw error;
  }

  const firstUsable = async (testid: string): Promise<WebElement> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      for (const element of await driver.findElements(By.css(`[data-testid="${testid}"]`))) {
        if ((await element.isDisplayed().catch(() => false)) && (await element.isEnabled().catch(() => false))) return element;
      }
      if (Date.now() > deadline) throw new Error(`webkit: no visible, enabled [data-testid="${testid}"] after 10 s`);
      await new Promise((done) => setTimeout(done, 200));
    }
  };
  const evaluate = <R, A>(fn: (arg: A) => R | Promise<R>, arg?: A) =>
    driver.executeScript(`return (${fn.toString()})(arguments[0]);`, arg ?? null) as Promise<R>;

  return {
    name: "webkit",
    refusesBlobsNatively: true,
    async newPage(options = {}): Promise<PhonePage> {
      await driver
        .manage()
        .window()
        .setRect({ x: 0, y: 0, width: options.width ?? PHONE.width, height: options.height ?? PHONE.height });
      return {
        engine: "webkit",
        async open(url) {
          await driver.get(url);
          // WebKitWebDriver has no init scripts (and MiniBrowser's console does not reach its output under automation):
          // errors are collected from the end of the page's load on, which covers every tap of a scenario.
          await evaluate(collectPageErrors);
          // WebKitGTK's mock camera: copies of its frames to a canvas come out black here (ADR 0051); a test card does not.
          await evaluate(testCardCamera);
          if (options.refuseBlobsInIndexedDb) await evaluate(refuseBlobsInIndexedDb);
        },
        click: async (testid) => (await firstUsable(testid)).click(),
        setFiles: async (selector, path) => driver.findElement(By.css(selector)).sendKeys(path),
        evaluate,
        async screenshot(path) {
          // WebKitWebDriver returns the last painted frame: a change made just before would be missing from it.
          await evaluate(() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted))));
          writeFileSync(path, Buffer.from(await driver.takeScreenshot(), "base64"));
        },
        setOffline: (offline) => evaluate(simulateOffline, offline),
        pageErrors: () => evaluate(readPageErrors),
        close: async () => void (await driver.get("about:blank")),
      };
    },
    async close() {
      await driver.quit().catch(() => undefined);
      stopProcesses();
    },
  };
}
