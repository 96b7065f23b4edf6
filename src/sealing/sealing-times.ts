import type { SealedResult } from "../../shared/sealer-protocol.ts";

/** Instants (epoch ms) of one sealing run as the Worker sees it. */
export interface SealingInstants {
  /** The proof's completion (its creation). */
  completedAt: string;
  sealerCalledAt: number;
  sealerAnsweredAt: number;
  recordedAt: number;
}

/**
 * One line per sealed proof saying where its time went, for operators and `npm run bench`: from
 * completion to the job sent to the sealer (the queue hand-over), the sealer's call with its own phases,
 * and storing (artifacts and the sealed batch). Cheap: a few clock readings per proof.
 */
export function logSealingTimes(proofId: string, result: SealedResult, at: SealingInstants): void {
  console.log(
    JSON.stringify({
      level: "info",
      message: "sealing times",
      proof_id: proofId,
      files: result.files.length,
      queue_handover_ms: at.sealerCalledAt - Date.parse(at.completedAt),
      sealer_call_ms: at.sealerAnsweredAt - at.sealerCalledAt,
      sealer: result.timings ?? null,
      storing_ms: at.recordedAt - at.sealerAnsweredAt,
    }),
  );
}
