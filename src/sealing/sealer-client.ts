import type { Env } from "../env.ts";
import {
  parseProtocolMessage,
  SealAnswerSchema,
  SEALER_PROTOCOL_VERSION,
  SealerErrorSchema,
  type SealJob,
  type SealRequest,
  type SealResult,
} from "../../shared/sealer-protocol.ts";

/** The sealer could not finish for a reason that may pass (authority or storage unreachable): retry. */
export class TransientSealingError extends Error {}

/** Long enough for a proof of large videos; the queue retries a timeout like any transient failure. */
export const SEAL_TIMEOUT_MS = 5 * 60_000;

/** Sends a job to the sealer: a plain process at SEALER_URL locally, the container in production. */
export async function callSealer(env: Env, job: SealJob): Promise<SealResult> {
  let response: Response;
  try {
    response = await sealerFetch(env, "/seal", job.proof.id, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${env.SEALER_SECRET ?? ""}` },
      body: JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...job } satisfies SealRequest),
      signal: AbortSignal.timeout(SEAL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new TransientSealingError(`sealer unreachable: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (response.status === 200) return readSealAnswer(text);
  throw new TransientSealingError(`sealer answered ${response.status}: ${describeSealerError(text)}`);
}

/**
 * A sealed or failed answer, parsed with the protocol's schema. An answer this Worker cannot read (a
 * sealer a version apart during a rollout, or a bug) is transient: nothing of it is stored, the queue
 * retries, and the log says what was wrong with it.
 */
export function readSealAnswer(text: string): SealResult {
  const parsed = parseProtocolMessage(SealAnswerSchema, text);
  if (parsed.ok) {
    const { protocol_version: _version, ...result } = parsed.value;
    return result;
  }
  const what = parsed.wrongVersion ? "speaks another protocol version" : `answered what protocol version ${SEALER_PROTOCOL_VERSION} does not allow`;
  throw new TransientSealingError(`sealer ${what}: ${parsed.problem}`);
}

/** The sealer's own error body says what happened; anything else (a proxy's page) is shown as it came. */
function describeSealerError(text: string): string {
  try {
    const body = SealerErrorSchema.safeParse(JSON.parse(text));
    if (body.success) return `${body.data.code}: ${body.data.message}`;
  } catch {
    // Not JSON: shown as it came.
  }
  return text.slice(0, 500);
}

export const sealerConfigured = (env: Env) => Boolean(env.SEALER_URL || env.SEALER_CONTAINER);

/** A request to the sealer: the local process at SEALER_URL, or in production the container `key` maps to. */
export function sealerFetch(env: Env, path: string, key: string, init: RequestInit = {}): Promise<Response> {
  return sealerFetcher(env, key)(new Request(`${sealerOrigin(env)}${path}`, init));
}

function sealerOrigin(env: Env): string {
  if (env.SEALER_URL) return env.SEALER_URL.replace(/\/$/, "");
  return "http://sealer";
}

/** As many as `max_instances` in wrangler.toml: proofs are spread over them, a proof always to the same one. */
export const SEALER_INSTANCES = 5;

export function sealerInstanceName(key: string): string {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `sealer-${hash % SEALER_INSTANCES}`;
}

function sealerFetcher(env: Env, key: string): (request: Request) => Promise<Response> {
  if (env.SEALER_URL) return (request) => fetch(request);
  if (env.SEALER_CONTAINER) {
    const stub = env.SEALER_CONTAINER.get(env.SEALER_CONTAINER.idFromName(sealerInstanceName(key)));
    return (request) => stub.fetch(request);
  }
  return () => Promise.reject(new Error("no sealer configured (SEALER_URL or the SEALER_CONTAINER binding)"));
}
