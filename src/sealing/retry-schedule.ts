/**
 * Delays (seconds) before each new sealing attempt after a transient failure (sealer, authority or
 * storage unreachable): about 35 minutes in all, then the proof fails with `sealing_unavailable`.
 * Short first steps because most outages of a timestamp authority are brief and people wait for proofs.
 */
export const SEALING_RETRY_DELAYS_SECONDS = [5, 15, 30, 60, 120, 300, 600, 900] as const;

/** The delay before attempt `attempts + 1`, or null once the budget is spent. */
export function sealingRetryDelay(attempts: number): number | null {
  return SEALING_RETRY_DELAYS_SECONDS[attempts - 1] ?? null;
}
