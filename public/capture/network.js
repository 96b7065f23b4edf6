// @ts-check
/**
 * Every request the page makes goes through one retry policy: a permanent refusal (a 4xx other than 408
 * and 429) is thrown at once for the page to explain; anything else (no network, a 5xx, a timeout) is
 * tried again with exponential back-off and jitter (1 s to 30 s), at once when the browser says it is
 * back online, for as long as the page is open.
 */

/** A refusal or failure the server answered: its status and problem body (null when not JSON). */
export class HttpError extends Error {
  /**
   * @param {number} status
   * @param {any} body the parsed answer, read by its known fields (`code`, `title`, `locale`)
   */
  constructor(status, body) {
    super(body?.title || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export class Aborted extends Error {}

/** @param {unknown} error */
export const isPermanent = (error) =>
  error instanceof Aborted || (error instanceof HttpError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429);

/** The problem code of a refusal, or null. */
/**
 * @param {unknown} error
 * @returns {string | null}
 */
export const codeOf = (error) => (error instanceof HttpError ? (error.body?.code ?? null) : null);

/**
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [options]
 * @returns {Promise<any>} the parsed JSON answer, read by its documented fields
 */
export async function api(path, options = {}) {
  const response = await fetch(path, {
    method: options.method || "GET",
    headers: options.body === undefined ? {} : { "Content-Type": "application/json" },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // A proxy's or captive portal's HTML page: the status says enough.
  }
  if (!response.ok) throw new HttpError(response.status, body);
  return body;
}

/** Waits `ms`, or less when the browser comes back online, or until `signal` aborts. */
/**
 * @param {number} ms
 * @param {AbortSignal} [signal]
 */
function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      signal?.removeEventListener("abort", done);
      resolve(undefined);
    };
    const timer = setTimeout(done, ms);
    window.addEventListener("online", done);
    signal?.addEventListener("abort", done);
  });
}

/**
 * Runs `work` until it succeeds or is refused for good. `onWait(seconds)` is told before each pause, so
 * the page can show that it is waiting for the network.
 * @template T
 * @param {(attempt: number) => Promise<T>} work
 * @param {{ onWait?: (seconds: number, error: unknown) => void, signal?: AbortSignal }} [options]
 * @returns {Promise<T>}
 */
export async function retrying(work, { onWait, signal } = {}) {
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new Aborted("aborted");
    try {
      return await work(attempt);
    } catch (error) {
      if (isPermanent(error) || signal?.aborted) throw error;
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
      onWait?.(Math.ceil(delay / 1000), error);
      await pause(delay, signal);
    }
  }
}

/**
 * One PUT of one part straight to storage, with upload progress; answers the ETag storage gave. A PUT under
 * way is let finish even when its shot is deleted (the file is then deleted on the server): cutting it would
 * leave storage with half a part and the browser with a failed request.
 */
/**
 * @param {import("./types.js").UploadPart} part
 * @param {Blob} blob
 * @param {(loaded: number) => void} onProgress
 * @returns {Promise<string>}
 */
export function putPart(part, blob, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(part.method, part.url);
    // Storage answers with an empty body: read as text, never parsed as XML (Firefox logs an error otherwise).
    xhr.responseType = "text";
    for (const [name, value] of Object.entries(part.headers || {})) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr.getResponseHeader("ETag") ?? "");
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // S3 answers XML; the status is what matters.
      }
      reject(new HttpError(xhr.status, body));
    };
    xhr.onerror = () => reject(new Error("network"));
    xhr.ontimeout = () => reject(new Error("timeout"));
    xhr.send(blob.slice(part.offset, part.offset + part.length));
  });
}

/** Online or not, as far as the browser knows; `onChange` is called on every change. */
/** @param {(online: boolean) => void} onChange */
export function watchConnection(onChange) {
  window.addEventListener("online", () => onChange(true));
  window.addEventListener("offline", () => onChange(false));
  onChange(navigator.onLine);
}
