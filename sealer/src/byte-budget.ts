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

  /** Resolves when `bytes` fit, with the function that gives them back. */
  async acquire(bytes: number): Promise<() => void> {
    const need = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && this.used + need <= this.capacity) this.used += need;
    else await new Promise<void>((start) => this.waiting.push({ bytes: need, start }));
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

  private admit(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.start();
    }
  }
}
