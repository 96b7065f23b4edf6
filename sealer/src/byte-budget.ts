/**
 * Bounds the bytes of original files the sealer holds at once, across every job it runs: a file is
 * loaded whole (c2pa-rs signs from memory) and, while signed, lives about three times over (original,
 * reader copies, signed copy). Waiters are served in order, so a large video is never starved by the
 * photos queued after it; a file larger than the whole budget runs alone.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: { bytes: number; start: () => void }[] = [];

  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /**
   * Resolves when `bytes` fit, with the function that gives them back. An aborted job leaves the queue
   * at once (rejecting with the signal's reason), so it never holds or blocks bytes it will not use.
   */
  async acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const need = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && this.used + need <= this.capacity) this.used += need;
    else await this.wait(need, signal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= need;
      this.admit();
    };
  }

  get inUse(): number {
    return this.used;
  }

  private wait(bytes: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        bytes,
        start: () => {
          signal?.removeEventListener("abort", leave);
          resolve();
        },
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        // Those queued behind it may fit now.
        this.admit();
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.start();
    }
  }
}
