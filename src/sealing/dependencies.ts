import type { WorkerContext } from "../domain/context.ts";
import { issueDeleteUrl, issueDownloadUrl, issueUploadUrl } from "../storage/signed-urls.ts";
import { callSealer } from "./sealer-client.ts";
import { publishEvents } from "../events/publish.ts";
import type { SealingDependencies } from "./seal-proof.ts";

/** Long enough for the sealer to fetch and write large videos; a retry gets fresh URLs. */
const SEALER_URL_LIFETIME_SECONDS = 30 * 60;

export function sealingDependencies(worker: WorkerContext): SealingDependencies {
  const { env, db } = worker;
  return {
    db,
    files: env.FILES,
    downloadUrl: async (key) => {
      const signed = await issueDownloadUrl(env, key, SEALER_URL_LIFETIME_SECONDS);
      return { url: signed.url, headers: signed.headers };
    },
    uploadUrl: async (key, contentType) => {
      const signed = await issueUploadUrl(env, { key, contentType, expiresInSeconds: SEALER_URL_LIFETIME_SECONDS });
      return { url: signed.url, method: signed.method, headers: signed.headers };
    },
    discardUrl: async (key) => {
      const signed = await issueDeleteUrl(env, key, SEALER_URL_LIFETIME_SECONDS);
      return { url: signed.url, method: signed.method, headers: signed.headers };
    },
    seal: (job) => callSealer(env, job),
    publishEvents: (eventIds) => publishEvents(worker, eventIds),
  };
}
