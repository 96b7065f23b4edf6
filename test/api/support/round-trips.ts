/**
 * Counts the storage round trips a request makes: D1 statements and batches, Durable Object calls, R2
 * operations, and how many of them are sequential (a step starts when nothing else is in flight, so
 * calls made together with Promise.all count as one step). In production each sequential step to D1's
 * primary or a Durable Object is a cross-region trip for most callers: that number is the API's fixed cost.
 *
 * Like platform-limits.ts, it wraps the bindings of the shared `env` the Worker's handlers receive in
 * these tests, for the duration of one piece of work.
 */
import { env } from "cloudflare:workers";

export interface RoundTrips {
  d1Statements: number;
  d1Batches: number;
  durableObjectCalls: number;
  r2Operations: number;
  /** Steps where the request waited for storage with nothing else in flight. */
  sequential: number;
  /** Each round trip in order, e.g. `d1`, `d1 batch(3)`, `do API_ACCOUNT.take`, `r2 put`. */
  log: string[];
}

class Tracker {
  inFlight = 0;
  trips: RoundTrips = { d1Statements: 0, d1Batches: 0, durableObjectCalls: 0, r2Operations: 0, sequential: 0, log: [] };

  async track<T>(label: string, kind: "d1Statements" | "d1Batches" | "durableObjectCalls" | "r2Operations", work: () => Promise<T>): Promise<T> {
    if (this.inFlight === 0) this.trips.sequential++;
    this.inFlight++;
    this.trips[kind]++;
    this.trips.log.push(label);
    try {
      return await work();
    } finally {
      this.inFlight--;
    }
  }
}

function countedStatement(tracker: Tracker, statement: D1PreparedStatement): D1PreparedStatement {
  const counted = {
    inner: statement,
    bind: (...values: unknown[]) => countedStatement(tracker, statement.bind(...values)),
    first: (column?: string) => tracker.track("d1", "d1Statements", () => (column === undefined ? statement.first() : statement.first(column))),
    run: () => tracker.track("d1", "d1Statements", () => statement.run()),
    all: () => tracker.track("d1", "d1Statements", () => statement.all()),
    raw: (options?: { columnNames?: boolean }) =>
      tracker.track("d1", "d1Statements", () => (options?.columnNames ? statement.raw({ columnNames: true }) : statement.raw())),
  };
  return counted as unknown as D1PreparedStatement;
}

const inner = (statement: D1PreparedStatement) => (statement as unknown as { inner?: D1PreparedStatement }).inner ?? statement;

function countedD1(tracker: Tracker, db: D1Database): D1Database {
  return {
    prepare: (sql: string) => countedStatement(tracker, db.prepare(sql)),
    batch: (statements: D1PreparedStatement[]) => tracker.track(`d1 batch(${statements.length})`, "d1Batches", () => db.batch(statements.map(inner))),
    exec: (sql: string) => tracker.track("d1 exec", "d1Statements", () => db.exec(sql)),
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint),
  } as unknown as D1Database;
}

function countedNamespace(tracker: Tracker, name: string, namespace: DurableObjectNamespace): DurableObjectNamespace {
  const countedStub = (stub: DurableObjectStub) =>
    new Proxy(stub, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (typeof value !== "function" || typeof property !== "string" || property === "fetch") return value;
        // An RPC method is a stub itself (it has no `apply`): call it as a method of the stub.
        const methods = target as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
        return (...args: unknown[]) => tracker.track(`do ${name}.${property}`, "durableObjectCalls", () => methods[property]!(...args));
      },
    });
  return {
    idFromName: (value: string) => namespace.idFromName(value),
    idFromString: (value: string) => namespace.idFromString(value),
    newUniqueId: (options?: DurableObjectNamespaceNewUniqueIdOptions) => namespace.newUniqueId(options),
    get: (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => countedStub(namespace.get(id, options)),
    getByName: (value: string) => countedStub(namespace.get(namespace.idFromName(value))),
    jurisdiction: () => namespace,
  } as unknown as DurableObjectNamespace;
}

function countedBucket(tracker: Tracker, bucket: R2Bucket): R2Bucket {
  return new Proxy(bucket, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => tracker.track(`r2 ${property}`, "r2Operations", () => value.apply(target, args));
    },
  });
}

const DURABLE_OBJECTS = ["RATE_LIMIT_BUCKET", "API_ACCOUNT", "PROOF_LINK_LOCK"] as const;

/** Runs `work` (usually one call to the Worker) with every storage binding counted; returns its result and the count. */
export async function countRoundTrips<T>(work: () => Promise<T>): Promise<{ result: T; trips: RoundTrips }> {
  const tracker = new Tracker();
  const bindings = env as unknown as Record<string, unknown>;
  const saved: Record<string, unknown> = { DB: env.DB, FILES: env.FILES, ...Object.fromEntries(DURABLE_OBJECTS.map((name) => [name, bindings[name]])) };
  bindings.DB = countedD1(tracker, env.DB);
  bindings.FILES = countedBucket(tracker, env.FILES);
  for (const name of DURABLE_OBJECTS) bindings[name] = countedNamespace(tracker, name, saved[name] as DurableObjectNamespace);
  try {
    const result = await work();
    return { result, trips: tracker.trips };
  } finally {
    Object.assign(bindings, saved);
  }
}
