import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Production's documented limits, enforced around the local bindings: local D1 is plain SQLite and
 * miniflare's queues accept anything, so without this a sweep that breaks on the platform passes here.
 * Figures: developers.cloudflare.com/d1/platform/limits and /queues/platform/limits (see
 * ../shared/notes/platform-limits.md); a breach throws as the platform would, failing the test.
 */

export const D1_LIMITS = {
  boundParametersPerQuery: 100,
  /** Largest string, BLOB or table row. */
  rowBytes: 2_000_000,
  sqlStatementBytes: 100_000,
  /** Queries per Worker invocation (Workers Paid); a batch can never hold more. */
  queriesPerInvocation: 1_000,
} as const;

export const QUEUE_LIMITS = {
  messagesPerSendBatch: 100,
  /** "KB" is 1,000 bytes there, and each message carries ~100 bytes of metadata that count. */
  sendBatchBytes: 256_000,
  messageBytes: 128_000,
  metadataBytesPerMessage: 100,
  delaySeconds: 86_400,
} as const;

const RAW = Symbol.for("platform-limits.raw-binding");

export class PlatformLimitError extends Error {
  override name = "PlatformLimitError";
}

const encoder = new TextEncoder();

function valueBytes(value: unknown): number {
  if (typeof value === "string") return encoder.encode(value).length;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value === null || value === undefined) return 0;
  return 8;
}

/** The checks D1 applies to one statement before running it. */
export function checkStatement(sql: string, values: readonly unknown[]): void {
  if (values.length > D1_LIMITS.boundParametersPerQuery) {
    throw new PlatformLimitError(
      `D1: ${values.length} bound parameters, over the limit of ${D1_LIMITS.boundParametersPerQuery} (too many SQL variables): ${sql.slice(0, 120)}`,
    );
  }
  const sqlBytes = encoder.encode(sql).length;
  if (sqlBytes > D1_LIMITS.sqlStatementBytes) throw new PlatformLimitError(`D1: statement of ${sqlBytes} bytes, over ${D1_LIMITS.sqlStatementBytes}`);
  for (const value of values) {
    const size = valueBytes(value);
    if (size > D1_LIMITS.rowBytes)
      throw new PlatformLimitError(`D1: a bound string or BLOB of ${size} bytes, over ${D1_LIMITS.rowBytes}: ${sql.slice(0, 120)}`);
  }
  // A row is written from the values of one INSERT or UPDATE; their sum bounds the row from below.
  if (/^\s*(insert|update|replace)\b/i.test(sql)) {
    const total = values.reduce<number>((sum, value) => sum + valueBytes(value), 0);
    if (total > D1_LIMITS.rowBytes) throw new PlatformLimitError(`D1: a row of at least ${total} bytes, over ${D1_LIMITS.rowBytes}: ${sql.slice(0, 120)}`);
  }
}

/** The queries made so far by the handler invocation (fetch, queue, scheduled) this code runs in. */
const invocation = new AsyncLocalStorage<{ queries: number }>();

/** Counts queries against the invocation's budget; outside a handler (a test calling a function) nothing counts. */
function countQueries(count: number): void {
  const current = invocation.getStore();
  if (current === undefined) return;
  current.queries += count;
  if (current.queries > D1_LIMITS.queriesPerInvocation) {
    throw new PlatformLimitError(`D1: query ${current.queries} of one invocation, over the ${D1_LIMITS.queriesPerInvocation} a Worker invocation may make`);
  }
}

/**
 * Runs each of the Worker's handlers in its own query budget, as production counts them per invocation
 * (what a handler leaves to `waitUntil` counts towards the same invocation).
 */
export function countQueriesPerInvocation(handlers: object): void {
  const target = handlers as Record<"fetch" | "queue" | "scheduled", ((...args: unknown[]) => unknown) | undefined>;
  for (const name of ["fetch", "queue", "scheduled"] as const) {
    const original = target[name];
    if (original === undefined || RAW in original) continue;
    target[name] = Object.assign((...args: unknown[]) => invocation.run({ queries: 0 }, () => original.apply(handlers, args)), { [RAW]: original });
  }
}

const INNER = Symbol("inner statement");

class LimitedStatement {
  readonly [INNER]: D1PreparedStatement;
  readonly sql: string;
  readonly values: readonly unknown[];

  constructor(inner: D1PreparedStatement, sql: string, values: readonly unknown[]) {
    this[INNER] = inner;
    this.sql = sql;
    this.values = values;
  }

  bind(...values: unknown[]): LimitedStatement {
    return new LimitedStatement(this[INNER].bind(...values), this.sql, values);
  }

  async first(column?: string): Promise<unknown> {
    checkStatement(this.sql, this.values);
    countQueries(1);
    return column === undefined ? this[INNER].first() : this[INNER].first(column);
  }

  async run(): Promise<D1Result> {
    checkStatement(this.sql, this.values);
    countQueries(1);
    return this[INNER].run();
  }

  async all(): Promise<D1Result> {
    checkStatement(this.sql, this.values);
    countQueries(1);
    return this[INNER].all();
  }

  async raw(options?: { columnNames?: boolean }): Promise<unknown> {
    checkStatement(this.sql, this.values);
    countQueries(1);
    return options?.columnNames ? this[INNER].raw({ columnNames: true }) : this[INNER].raw();
  }
}

function unwrapForBatch(statements: readonly D1PreparedStatement[]): D1PreparedStatement[] {
  countQueries(statements.length);
  return statements.map((statement) => {
    const limited = statement as unknown as LimitedStatement;
    if (!(INNER in limited)) return statement;
    checkStatement(limited.sql, limited.values);
    return limited[INNER];
  });
}

/** A D1 binding that refuses what production refuses; everything else goes to the local database. */
export function limitedD1(db: D1Database): D1Database {
  const limited = {
    prepare: (sql: string) => new LimitedStatement(db.prepare(sql), sql, []),
    batch: async (statements: D1PreparedStatement[]) => db.batch(unwrapForBatch(statements)),
    exec: (sql: string) => db.exec(sql),
    dump: () => db.dump(),
    withSession: (constraint?: string) => {
      const session = db.withSession(constraint);
      return {
        prepare: (sql: string) => new LimitedStatement(session.prepare(sql), sql, []),
        batch: async (statements: D1PreparedStatement[]) => session.batch(unwrapForBatch(statements)),
        getBookmark: () => session.getBookmark(),
      };
    },
  };
  return limited as unknown as D1Database;
}

function messageBytes(body: unknown): number {
  // Messages are serialised (v8 by default); their JSON is a close and safe stand-in for the size.
  const serialised = typeof body === "string" ? body : (JSON.stringify(body) ?? "");
  return encoder.encode(serialised).length + QUEUE_LIMITS.metadataBytesPerMessage;
}

function checkDelay(delaySeconds: number | undefined): void {
  if (delaySeconds !== undefined && delaySeconds > QUEUE_LIMITS.delaySeconds) {
    throw new PlatformLimitError(`Queues: delaySeconds ${delaySeconds}, over ${QUEUE_LIMITS.delaySeconds}`);
  }
}

function checkMessage(body: unknown): number {
  const size = messageBytes(body);
  if (size > QUEUE_LIMITS.messageBytes) throw new PlatformLimitError(`Queues: a message of ${size} bytes, over ${QUEUE_LIMITS.messageBytes}`);
  return size;
}

/** A queue producer that refuses what production refuses. */
export function limitedQueue(queue: Queue): Queue {
  return {
    metrics: () => queue.metrics(),
    send: async (body: unknown, options?: QueueSendOptions) => {
      checkMessage(body);
      checkDelay(options?.delaySeconds);
      return queue.send(body, options);
    },
    sendBatch: async (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
      const list = [...messages];
      if (list.length > QUEUE_LIMITS.messagesPerSendBatch) {
        throw new PlatformLimitError(`Queues: sendBatch of ${list.length} messages, over ${QUEUE_LIMITS.messagesPerSendBatch}`);
      }
      const total = list.reduce((sum, message) => {
        checkDelay(message.delaySeconds);
        return sum + checkMessage(message.body);
      }, 0);
      if (total > QUEUE_LIMITS.sendBatchBytes) throw new PlatformLimitError(`Queues: sendBatch of ${total} bytes, over ${QUEUE_LIMITS.sendBatchBytes}`);
      checkDelay(options?.delaySeconds);
      return queue.sendBatch(list, options);
    },
  };
}

/** The D1 bindings of the shards the tests run on (wrangler.toml's SHARDS). */
export const SHARD_BINDING_NAMES = ["DB", "DB_01", "DB_02"] as const;
type ShardBindingName = (typeof SHARD_BINDING_NAMES)[number];

/** The binding without the limits (for the test harness itself, e.g. applying migrations). */
export function rawBinding<T>(binding: T): T {
  return ((binding as Record<symbol, unknown>)[RAW] as T | undefined) ?? binding;
}

/**
 * Replaces the bindings of the shared `env` (the one the Worker's handlers receive in these tests) with
 * their limited versions, once.
 */
export function enforcePlatformLimits(env: Record<ShardBindingName, D1Database> & { SEALING_QUEUE: Queue; WEBHOOK_QUEUE: Queue; SWEEPS_QUEUE: Queue }): void {
  const wrap = <T extends object>(raw: T, limited: T): T => Object.assign(limited, { [RAW]: raw });
  // Every shard is a database of its own, with production's limits on each (docs/adr/0062).
  for (const name of SHARD_BINDING_NAMES) if (rawBinding(env[name]) === env[name]) env[name] = wrap(env[name], limitedD1(env[name]));
  if (rawBinding(env.SEALING_QUEUE) === env.SEALING_QUEUE) env.SEALING_QUEUE = wrap(env.SEALING_QUEUE, limitedQueue(env.SEALING_QUEUE));
  if (rawBinding(env.WEBHOOK_QUEUE) === env.WEBHOOK_QUEUE) env.WEBHOOK_QUEUE = wrap(env.WEBHOOK_QUEUE, limitedQueue(env.WEBHOOK_QUEUE));
  if (rawBinding(env.SWEEPS_QUEUE) === env.SWEEPS_QUEUE) env.SWEEPS_QUEUE = wrap(env.SWEEPS_QUEUE, limitedQueue(env.SWEEPS_QUEUE));
}
