/**
 * One small driver interface over the three browser engines phones run (Chromium, Gecko, WebKit), so that each
 * capture page scenario is written once and runs in all three. Every page is phone-sized (390×844) with a fake
 * camera; clicks are real pointer events at the centre of the element, so a control covered by another one fails.
 */
import { afterAll, beforeAll } from "vitest";

export type EngineName = "chromium" | "firefox" | "webkit";

export const PHONE = { width: 390, height: 844 } as const;

export interface PhonePage {
  readonly engine: EngineName;
  open(url: string): Promise<void>;
  /** Waits for the first visible, enabled `[data-testid=…]` and clicks the centre of it. */
  click(testid: string): Promise<void>;
  setFiles(selector: string, path: string): Promise<void>;
  /** Runs `fn(arg)` in the page (a promise is awaited); `fn` must not close over anything. */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  screenshot(path: string): Promise<void>;
  /** Cuts the page off the network (and back); where the engine cannot, the page's fetch/XHR are cut instead. */
  setOffline(offline: boolean): Promise<void>;
  /** The uncaught exceptions and unhandled rejections the page has had so far. */
  pageErrors(): Promise<string[]>;
  close(): Promise<void>;
}

export interface PageOptions {
  /** A narrower phone than PHONE's 390 px (e.g. 360), same height unless `height` says otherwise. */
  width?: number;
  /** Another height than PHONE's 844 px (e.g. 568, or 390 for a phone held sideways). */
  height?: number;
  /** Makes IndexedDB refuse Blob values, as WebKit does natively in private and WebDriver sessions. */
  refuseBlobsInIndexedDb?: boolean;
}

export interface Engine {
  readonly name: EngineName;
  /** Whether IndexedDB refuses Blobs in this engine's sessions without any help. */
  readonly refusesBlobsNatively: boolean;
  newPage(options?: PageOptions): Promise<PhonePage>;
  close(): Promise<void>;
}

/** An engine, or why it cannot run here (then its tests are skipped, loudly). */
export type Launched = Engine | { skipped: string };

/**
 * An engine launched for the describe block that calls this (closed after it), or why its tests are skipped,
 * said loudly once.
 */
export function useEngine(name: EngineName, launch: () => Promise<Launched>, tests: string): { engine?: Engine; skipped: string } {
  const used: { engine?: Engine; skipped: string } = { skipped: "" };
  beforeAll(async () => {
    const launched = await launch();
    if ("skipped" in launched) {
      used.skipped = `${name} is not available: ${launched.skipped}`;
      console.warn(`\n!! SKIPPED: ${tests} in ${name}. ${used.skipped}\n`);
    } else used.engine = launched;
  });
  afterAll(async () => {
    await used.engine?.close();
  });
  return used;
}

/**
 * Polls `predicate` in the page until it holds. A check that fails because the page is between two documents (a
 * reload, a navigation) is tried again; the last such error is given if time runs out.
 */
export async function waitFor<A>(page: PhonePage, what: string, predicate: (arg: A) => unknown, arg?: A, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await page.evaluate(predicate, arg as A)) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`${page.engine}: still waiting after ${timeoutMs} ms for ${what}`, { cause: lastError });
    await new Promise((done) => setTimeout(done, 200));
  }
}

/* Scripts run inside the page (installed before the page's own scripts where the engine allows it). */

/**
 * A camera that films a test card (colour bars, a checkerboard, a moving disc and a clock) in place of Gecko's
 * fake camera, whose every frame is one flat colour: a blank picture, which the page rightly refuses (quality.js).
 * The original stream is still opened (permission, microphone); only its picture is replaced.
 */
export function testCardCamera(): void {
  const devices = navigator.mediaDevices;
  const open = devices.getUserMedia.bind(devices);
  devices.getUserMedia = async (constraints) => {
    const original = await open(constraints);
    if (!constraints?.video) return original;
    const canvas = document.createElement("canvas");
    canvas.width = 1280;
    canvas.height = 720;
    const context = canvas.getContext("2d")!;
    const colours = ["#c0c0c0", "#c0c000", "#00c0c0", "#00c000", "#c000c0", "#c00000", "#0000c0"];
    const paint = () => {
      colours.forEach((colour, index) => {
        context.fillStyle = colour;
        context.fillRect((index * canvas.width) / colours.length, 0, canvas.width / colours.length + 1, canvas.height * 0.6);
      });
      for (let x = 0; x < canvas.width; x += 40) {
        for (let y = canvas.height * 0.6; y < canvas.height; y += 40) {
          context.fillStyle = (x + y) % 80 === 0 ? "#111" : "#eee";
          context.fillRect(x, y, 40, 40);
        }
      }
      const t = performance.now() / 1000;
      context.fillStyle = "#fff";
      context.beginPath();
      context.arc(canvas.width / 2 + Math.cos(t) * 200, canvas.height * 0.3, 80, 0, 2 * Math.PI);
      context.fill();
      context.fillStyle = "#000";
      context.font = "48px monospace";
      context.fillText(new Date().toISOString().slice(11, 23), 40, 80);
    };
    paint();
    setInterval(paint, 100);
    const card = (canvas as HTMLCanvasElement & { captureStream(rate: number): MediaStream }).captureStream(10);
    for (const track of original.getVideoTracks()) {
      original.removeTrack(track);
      track.stop();
    }
    for (const track of card.getVideoTracks()) original.addTrack(track);
    return original;
  };
}

/** Keeps every uncaught exception and unhandled rejection in `window.__pageErrors`. */
export function collectPageErrors(): void {
  const w = window as unknown as { __pageErrors?: string[] };
  if (w.__pageErrors) return;
  const errors: string[] = [];
  w.__pageErrors = errors;
  window.addEventListener("error", (event) => errors.push(`uncaught: ${event.message} (${event.filename}:${event.lineno})`));
  window.addEventListener("unhandledrejection", (event) => {
    const reason = event.reason as { name?: string; message?: string } | undefined;
    errors.push(`unhandled rejection: ${reason?.name ?? ""} ${reason?.message ?? String(event.reason)}`);
  });
}

export const readPageErrors = () => (window as unknown as { __pageErrors?: string[] }).__pageErrors ?? [];

/**
 * IndexedDB refusing Blobs the way WebKit does in a private or WebDriver session: the put/add request of a value
 * holding a Blob fails (its transaction aborts) while plain values store fine.
 */
export function refuseBlobsInIndexedDb(): void {
  const holdsBlob = (value: unknown, depth = 0): boolean =>
    value instanceof Blob || (depth < 4 && typeof value === "object" && value !== null && Object.values(value).some((inner) => holdsBlob(inner, depth + 1)));
  for (const method of ["put", "add"] as const) {
    const original = IDBObjectStore.prototype[method];
    IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: [unknown, IDBValidKey?]) {
      const request = original.apply(this, args);
      if (holdsBlob(args[0])) this.transaction.abort();
      return request;
    };
  }
}

/** Whether this page's IndexedDB stores a Blob (an engine-neutral probe, in a throwaway database). */
export async function indexedDbStoresBlobs(): Promise<boolean> {
  const name = `blob-probe-${Math.random()}`;
  const db = await new Promise<IDBDatabase>((done, fail) => {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => open.result.createObjectStore("s");
    open.onsuccess = () => done(open.result);
    open.onerror = () => fail(open.error);
  });
  const stored = await new Promise<boolean>((done) => {
    try {
      const transaction = db.transaction("s", "readwrite");
      transaction.objectStore("s").put({ blob: new Blob(["x"]) }, 1);
      transaction.oncomplete = () => done(true);
      transaction.onerror = transaction.onabort = () => done(false);
    } catch {
      done(false);
    }
  });
  db.close();
  indexedDB.deleteDatabase(name);
  return stored;
}

/**
 * Offline inside the page, for an engine whose driver cannot cut the network: navigator.onLine turns false, the
 * `offline`/`online` events fire, and fetch and XHR fail as they do without a network.
 */
export function simulateOffline(offline: boolean): void {
  const w = window as unknown as { __offline?: boolean };
  if (w.__offline === undefined) {
    const onLine = Object.getOwnPropertyDescriptor(Navigator.prototype, "onLine")!;
    Object.defineProperty(Navigator.prototype, "onLine", {
      configurable: true,
      get() {
        return w.__offline ? false : onLine.get!.call(this);
      },
    });
    const fetch = window.fetch;
    window.fetch = (...args) => (w.__offline ? Promise.reject(new TypeError("Load failed")) : fetch(...args));
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body) {
      if (!w.__offline) return send.call(this, body);
      setTimeout(() => {
        this.dispatchEvent(new ProgressEvent("error"));
        this.dispatchEvent(new ProgressEvent("loadend"));
      });
    };
  }
  w.__offline = offline;
  window.dispatchEvent(new Event(offline ? "offline" : "online"));
}
