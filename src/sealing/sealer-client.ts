import type { Env } from "../env.ts";
import { TransientSealingError, type SealJob, type SealResult } from "./sealer-protocol.ts";

/** Long enough for a proof of large videos; the queue retries a timeout like any transient failure. */
const SEAL_TIMEOUT_MS = 5 * 60_000;

/** Sends a job to the sealer: a plain process at SEALER_URL locally, the container in production. */
export async function callSealer(env: Env, job: SealJob): Promise<SealResult> {
  const request = new Request(`${sealerOrigin(env)}/seal`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${env.SEALER_SECRET ?? ""}` },
    body: JSON.stringify(job),
    signal: AbortSignal.timeout(SEAL_TIMEOUT_MS),
  });
  let response: Response;
  try {
    response = await sealerFetcher(env)(request);
  } catch (error) {
    throw new TransientSealingError(`sealer unreachable: ${(error as Error).message}`);
  }
  if (response.status === 200) return (await response.json()) as SealResult;
  const detail = (await response.text()).slice(0, 500);
  throw new TransientSealingError(`sealer answered ${response.status}: ${detail}`);
}

function sealerOrigin(env: Env): string {
  if (env.SEALER_URL) return env.SEALER_URL.replace(/\/$/, "");
  return "http://sealer";
}

function sealerFetcher(env: Env): (request: Request) => Promise<Response> {
  if (env.SEALER_URL) return (request) => fetch(request);
  if (env.SEALER_CONTAINER) {
    const stub = env.SEALER_CONTAINER.get(env.SEALER_CONTAINER.idFromName("sealer"));
    return (request) => stub.fetch(request);
  }
  return () => Promise.reject(new Error("no sealer configured (SEALER_URL or the SEALER_CONTAINER binding)"));
}
