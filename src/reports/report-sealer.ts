import type { Env } from "../env.ts";
import type { ReportJob, ReportRequest } from "../../shared/report-protocol.ts";
import { SEALER_PROTOCOL_VERSION, SealerErrorSchema } from "../../shared/sealer-protocol.ts";
import { sealerFetch, TransientSealingError } from "../sealing/sealer-client.ts";

/** Ten large photos fetched and resized, the layout, the PAdES seal and its two timestamps: well under a minute. */
export const REPORT_TIMEOUT_MS = 2 * 60_000;

/**
 * Asks the sealer for the sealed PDF of `job` (`POST /report`, docs/adr/0044). Anything but a 200 with a PDF
 * is transient (the sealer, its storage or the authority out of reach, a sealer without the route during a
 * rollout): the caller retries, nothing is stored.
 */
export async function callReportSealer(env: Env, job: ReportJob): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await sealerFetch(env, "/report", job.proofs[job.proofs.length - 1]!.id, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${env.SEALER_SECRET ?? ""}` },
      body: JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...job } satisfies ReportRequest),
      signal: AbortSignal.timeout(REPORT_TIMEOUT_MS),
    });
  } catch (error) {
    throw new TransientSealingError(`sealer unreachable: ${(error as Error).message}`);
  }
  if (response.status === 200 && response.headers.get("Content-Type") === "application/pdf") return new Uint8Array(await response.arrayBuffer());
  const text = await response.text();
  const parsed = SealerErrorSchema.safeParse(safeJson(text));
  throw new TransientSealingError(
    `sealer answered ${response.status} to a report: ${parsed.success ? `${parsed.data.code}: ${parsed.data.message}` : text.slice(0, 300)}`,
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
