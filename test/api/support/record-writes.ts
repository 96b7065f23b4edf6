import { env } from "cloudflare:workers";

/**
 * Replaces the API_ACCOUNT binding the Worker's handlers read from the shared `env` by one whose stubs pass
 * every call through except `finish` (the write of a creation's answer into its Idempotency-Key record).
 * Returns the function that puts the binding back.
 */
export function interceptRecordWrites(finish: (write: () => Promise<unknown>) => Promise<unknown>): () => void {
  const bindings = env as unknown as Record<string, unknown>;
  const saved = env.API_ACCOUNT;
  bindings.API_ACCOUNT = {
    idFromName: (name: string) => saved.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = saved.get(id);
      return {
        take: (...args: Parameters<typeof stub.take>) => stub.take(...args),
        begin: (...args: Parameters<typeof stub.begin>) => stub.begin(...args),
        release: (...args: Parameters<typeof stub.release>) => stub.release(...args),
        finish: (...args: Parameters<typeof stub.finish>) => finish(() => stub.finish(...args)),
      };
    },
  };
  return () => {
    bindings.API_ACCOUNT = saved;
  };
}
