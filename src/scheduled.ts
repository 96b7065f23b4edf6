import type { Env } from "./env.ts";

/** A periodic job run by the cron trigger (every minute); each must be safe to run twice or concurrently. */
export type Sweep = (env: Env, now: Date) => Promise<void>;

/** The sweeps, in the order they run. Each resource adds its own here. */
const SWEEPS: ReadonlyArray<{ name: string; run: Sweep }> = [];

export async function runScheduledSweeps(env: Env, now: Date): Promise<void> {
  for (const sweep of SWEEPS) {
    try {
      await sweep.run(env, now);
    } catch (error) {
      // One failing sweep must not stop the others; the next minute retries it.
      console.error(JSON.stringify({ level: "error", sweep: sweep.name, message: (error as Error).message }));
    }
  }
}
