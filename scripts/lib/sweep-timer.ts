/**
 * Production's cron trigger runs the Worker's sweeps every minute; `wrangler dev` never triggers Scheduled
 * events by itself. Started with `--test-scheduled`, it runs the scheduled handler on `GET /__scheduled`,
 * so this timer asks for it on the same rhythm: expired sessions, stalled proofs and unpublished webhook
 * events are swept locally as they are in production. The handler sends one message per D1 shard to the
 * local sweeps queue, whose consumer sweeps each shard within a second or so (wrangler.toml, ADR 0062).
 */
export function triggerSweeps(baseUrl: string, intervalSeconds: number, cron: string): () => void {
  const url = `${baseUrl}/__scheduled?cron=${encodeURIComponent(cron)}`;
  let running = false;
  const tick = async () => {
    // A request longer than the interval is not doubled up (the cron does not overlap runs either).
    if (running) return;
    running = true;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(intervalSeconds * 1000) });
      await response.body?.cancel();
    } catch {
      // The Worker is restarting or stopping: the next tick tries again.
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
