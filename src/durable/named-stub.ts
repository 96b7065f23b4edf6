/**
 * A Durable Object's stub by name, its id remembered by the isolate: `idFromName` hashes the name on
 * every call, and the same few names (an API key's bucket, an account's records) are asked on every
 * request. An id is a plain value, valid in any request; the stub itself is made per request.
 */
const MAX_IDS_PER_NAMESPACE = 10_000;
const ids = new WeakMap<object, Map<string, DurableObjectId>>();

export function namedStub<T extends Rpc.DurableObjectBranded | undefined>(namespace: DurableObjectNamespace<T>, name: string): DurableObjectStub<T> {
  let known = ids.get(namespace);
  if (known === undefined) {
    known = new Map();
    ids.set(namespace, known);
  }
  let id = known.get(name);
  if (id === undefined) {
    id = namespace.idFromName(name);
    if (known.size >= MAX_IDS_PER_NAMESPACE) known.clear();
    known.set(name, id);
  }
  return namespace.get(id);
}
