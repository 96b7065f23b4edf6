/** The job stopped before its end: its caller left or its deadline passed. Nothing it did is kept. */
export class JobAbortedError extends Error {}

/**
 * The signal a job runs under: it fires when the caller's signal does (the Worker disconnected) or when
 * the job's deadline passes (the Worker no longer waits, even if its disconnection never reached us,
 * e.g. through the container's proxy). `dispose` clears the timer once the job is over.
 */
export function jobSignal(deadline: string, caller?: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const remaining = Date.parse(deadline) - Date.now();
  const expire = () => controller.abort(new JobAbortedError(`the job's deadline (${deadline}) passed`));
  // A past (or missing) deadline aborts before anything starts: the Worker has already given up on it.
  if (!(remaining > 0)) expire();
  const timer = remaining > 0 ? setTimeout(expire, remaining) : undefined;
  const callerLeft = () => controller.abort(new JobAbortedError("the caller disconnected"));
  if (caller?.aborted) callerLeft();
  caller?.addEventListener("abort", callerLeft, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      caller?.removeEventListener("abort", callerLeft);
    },
  };
}
