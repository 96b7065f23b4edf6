import type { KeyObject } from "node:crypto";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { ManifestDefinition } from "./c2pa.ts";
import type { FromThread, ToThread } from "./signing-thread.ts";

/** A signing thread stopped (crashed, or the pool closed) with the file under way: worth a retry. */
export class SigningThreadError extends Error {}

/** The signing of one file failed in c2pa-rs: the file cannot carry a manifest. */
export class SigningFailedError extends Error {}

export interface SignRequest {
  /** Handed over to the thread (transferred when they are a whole buffer): the caller must not use them after. */
  bytes: Uint8Array;
  definition: ManifestDefinition;
  key: KeyObject;
  chainDer: Uint8Array[];
  /** Obtains the signature's RFC 3161 token on this thread; null to sign without. */
  timestamp: ((message: Uint8Array) => Promise<Uint8Array>) | null;
}

export interface SignedCopy {
  bytes: Uint8Array;
  sha256: string;
  crc32: number;
}

interface Pending {
  request: SignRequest;
  signal: AbortSignal;
  /** The error of this file's timestamp, reported instead of c2pa-rs's rendering of it. */
  timestampError: unknown;
  resolve: (copy: SignedCopy) => void;
  reject: (error: unknown) => void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * Threads that C2PA-sign files (signing-thread.ts), so that signing one file, synchronous in c2pa-rs,
 * overlaps the downloads, uploads and timestamps of the others instead of holding the event loop
 * (docs/adr/0034). Each file goes to the thread with the fewest under way; a thread waiting for a
 * timestamp signs another file meanwhile. Idle threads keep no process alive.
 */
export class SigningPool {
  private readonly threads: (Thread | null)[];
  private nextId = 1;
  private closed = false;

  constructor(size: number) {
    this.threads = Array.from({ length: size }, () => null);
  }

  /**
   * Signs one file. When `signal` aborts, the thread is told to give up at once (its timestamp wait
   * ends) and the promise rejects with the signal's reason once the thread has let go of the file.
   * Rejects with SigningFailedError when c2pa-rs refuses the file, with the timestamp's own error when
   * that failed, and with SigningThreadError when the thread stopped.
   */
  sign(request: SignRequest, signal: AbortSignal): Promise<SignedCopy> {
    if (this.closed) return Promise.reject(new SigningThreadError("the signing pool is closed"));
    signal.throwIfAborted();
    const index = this.leastBusy();
    const thread = this.threads[index] ?? this.start(index);
    const id = this.nextId++;
    return new Promise<SignedCopy>((resolve, reject) => {
      thread.pending.set(id, { request, signal, timestampError: null, resolve, reject });
      thread.worker.ref();
      const { bytes } = request;
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer);
      const task: ToThread = {
        type: "sign",
        id,
        bytes,
        definition: request.definition,
        key: request.key,
        chainDer: request.chainDer,
        timestamped: request.timestamp !== null,
      };
      thread.worker.postMessage(task, whole ? [bytes.buffer as ArrayBuffer] : []);
    });
  }

  /** Starts every thread now (each loads c2pa-rs, some 100 ms of CPU), so that no job waits for it. */
  warm(): void {
    for (let index = 0; index < this.threads.length; index++) if (this.threads[index] === null) this.start(index);
  }

  /** Stops every thread; files under way reject with SigningThreadError. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread?.worker.terminate()));
  }

  private leastBusy(): number {
    let best = 0;
    for (let i = 1; i < this.threads.length; i++) if ((this.threads[i]?.pending.size ?? 0) < (this.threads[best]?.pending.size ?? 0)) best = i;
    return best;
  }

  private start(index: number): Thread {
    const thread: Thread = { worker: new Worker(new URL("./signing-thread.ts", import.meta.url)), pending: new Map() };
    this.threads[index] = thread;
    thread.worker.unref();
    thread.worker.on("message", (message: FromThread) => this.receive(thread, message));
    const stopped = (reason: string) => {
      if (this.threads[index] === thread) this.threads[index] = null;
      for (const pending of thread.pending.values()) pending.reject(new SigningThreadError(`the signing thread stopped: ${reason}`));
      thread.pending.clear();
    };
    thread.worker.on("error", (error) => stopped(error.message));
    thread.worker.on("exit", (code) => stopped(`exit code ${code}`));
    return thread;
  }

  private receive(thread: Thread, message: FromThread): void {
    const pending = thread.pending.get(message.id);
    if (pending === undefined) return;
    if (message.type === "timestamp") return void this.timestamp(thread, message.id, pending, message.message);
    thread.pending.delete(message.id);
    if (thread.pending.size === 0) thread.worker.unref();
    if (pending.signal.aborted) pending.reject(pending.signal.reason);
    else if (message.type === "signed") pending.resolve({ bytes: message.bytes, sha256: message.sha256, crc32: message.crc32 });
    else pending.reject(pending.timestampError ?? new SigningFailedError(message.message));
  }

  /** Obtains a token for the thread; an abort ends the wait at once, so the thread lets go of the file. */
  private async timestamp(thread: Thread, id: number, pending: Pending, message: Uint8Array): Promise<void> {
    let token: Uint8Array | null = null;
    let stopWaiting: () => void = () => {};
    const aborted = new Promise<never>((_, reject) => {
      const abort = () => reject(pending.signal.reason);
      if (pending.signal.aborted) return abort();
      pending.signal.addEventListener("abort", abort, { once: true });
      stopWaiting = () => pending.signal.removeEventListener("abort", abort);
    });
    try {
      token = await Promise.race([pending.request.timestamp!(message), aborted]);
    } catch (error) {
      pending.timestampError = error;
    } finally {
      stopWaiting();
    }
    thread.worker.postMessage({ type: "token", id, token } satisfies ToThread);
  }
}

let shared: SigningPool | null = null;

/**
 * A bound for machines with many cores (a developer's): the production container has 2 vCPU, and each
 * idle thread holds about 45 MB (c2pa-rs loaded).
 */
const MAX_THREADS = 4;

/** The process's pool: one thread per core (2 on the production container), at most MAX_THREADS. */
export function signingPool(): SigningPool {
  shared ??= new SigningPool(Math.min(availableParallelism(), MAX_THREADS));
  return shared;
}
