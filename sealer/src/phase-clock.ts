import type { SealingPhase, SealTimings } from "../../shared/sealer-protocol.ts";

/**
 * Where one job's time goes, always on: a few `performance.now()` readings per file and phase, kept as
 * intervals and merged once at the end. A job's files run concurrently, so for each phase it reports both
 * the wall time during which at least one file was in it (what the job waited for) and the sum over files
 * (what each file spent there, waits for the CPU included).
 */
export class PhaseClock {
  private readonly started = performance.now();
  private readonly intervals = new Map<SealingPhase, [number, number][]>();
  private readonly authorityCalls: SealTimings["authority_calls"] = { proof_authority: 0, signature_authority: 0 };

  /** Runs `work` as part of `phase`. */
  async time<T>(phase: SealingPhase, work: () => T | Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.record(phase, start);
    }
  }

  /** Counts `[start, now]` as time in `phase`. */
  record(phase: SealingPhase, start: number, end = performance.now()): void {
    const list = this.intervals.get(phase) ?? [];
    list.push([start, end]);
    this.intervals.set(phase, list);
  }

  /** One request to the proof's authority (what a qualified authority charges) or to a separate signatures' one. */
  countAuthorityCall(authority: keyof SealTimings["authority_calls"]): void {
    this.authorityCalls[authority]++;
  }

  timings(): SealTimings {
    const phases: SealTimings["phases"] = {};
    for (const [phase, list] of this.intervals)
      phases[phase] = { wall_ms: round(unionLength(list)), file_ms: round(list.reduce((sum, [a, b]) => sum + (b - a), 0)) };
    return { total_ms: round(performance.now() - this.started), phases, authority_calls: { ...this.authorityCalls } };
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The length of the union of intervals (overlapping ones counted once). */
function unionLength(intervals: [number, number][]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [start, end] = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const [a, b] of sorted) {
    if (a > end) {
      if (end > start) total += end - start;
      [start, end] = [a, b];
    } else end = Math.max(end, b);
  }
  if (end > start) total += end - start;
  return total;
}
