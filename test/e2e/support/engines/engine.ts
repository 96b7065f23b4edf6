/**
 * One small driver interface over the three browser engines phones run (Chromium, Gecko, WebKit), so that each
 * capture page scenario is written once and runs in all three. Every page is phone-sized (390×844) with a fake
 * camera; clicks are real pointer events at the centre of the element, so a control covered by another one fails.
 */
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
  /** A narrower phone than PHONE's 390 px (e.g. 360), same height. */
  width?: number;
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

export async function waitFor<A>(page: PhonePage, what: string, predicate: (arg: A) => unknown, arg?: A, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(predicate, arg as A)) return;
    if (Date.now() > deadline) throw new Error(`${page.engine}: still waiting after ${timeoutMs} ms for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/* Scripts run inside the page (installed before the page's own scripts where the engine allows it). */

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
