import { type BoundedCache, boundedCache } from "../../shared/bounded-cache.ts";

/**
 * A Durable Object's stub by name, its id remembered by the isolate: `idFromName` hashes the name on
 * every call, and the same few names (an API key's bucket, an account's records) are asked on every
 * request. An id is a plain value, valid in any request; the stub itself is made per request. Kept: 8
 * namespaces (a handful of bindings) and 10,000 names in each, the oldest dropped first, for the isolate's life.
 */
const ids = boundedCache<object, BoundedCache<string, DurableObjectId>>({ maxEntries: 8 });

export function namedStub<T extends Rpc.DurableObjectBranded | undefined>(namespace: DurableObjectNamespace<T>, name: string): DurableObjectStub<T> {
  const known = ids.getOrSet(namespace, () => boundedCache<string, DurableObjectId>({ maxEntries: 10_000 }));
  return namespace.get(known.getOrSet(name, () => namespace.idFromName(name)));
}
