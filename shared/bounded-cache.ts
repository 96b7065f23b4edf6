/**
 * The one in-memory cache of the Worker's isolates and the sealer's process: at most `maxEntries` entries,
 * the oldest stored dropped first when one more is stored, and, with `ttlMs`, each entry forgotten that long
 * after it was stored (or at the time `set` gives it). Every module-level cache is one of these, its bound
 * and lifetime written where it is made, so that none grows with what an attacker or a long uptime sends it.
 * Reading does not refresh an entry: what was stored first goes first.
 */
export interface BoundedCache<K, V> {
  /** The entry's value, unless absent or expired (an expired entry is dropped). */
  get(key: K, nowMs?: number): V | undefined;
  /** Stores `value` as the newest entry; `expiresAtMs` overrides the cache's `ttlMs` for this entry. */
  set(key: K, value: V, options?: { nowMs?: number; expiresAtMs?: number }): void;
  /** The value for `key`, made by `make` and stored when absent or expired (a promise is stored as it is). */
  getOrSet(key: K, make: () => V, nowMs?: number): V;
  delete(key: K): void;
  /** Drops every entry whose value or key `matches`. */
  deleteWhere(matches: (value: V, key: K) => boolean): void;
  readonly size: number;
}

export function boundedCache<K, V>(limits: { maxEntries: number; ttlMs?: number }): BoundedCache<K, V> {
  if (!Number.isInteger(limits.maxEntries) || limits.maxEntries < 1) throw new RangeError("maxEntries must be a positive integer");
  const entries = new Map<K, { value: V; expiresAtMs: number }>();
  const cache: BoundedCache<K, V> = {
    get(key, nowMs = Date.now()) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAtMs <= nowMs) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value, options = {}) {
      const expiresAtMs = options.expiresAtMs ?? (limits.ttlMs === undefined ? Number.POSITIVE_INFINITY : (options.nowMs ?? Date.now()) + limits.ttlMs);
      entries.delete(key);
      if (entries.size >= limits.maxEntries) entries.delete(entries.keys().next().value as K);
      entries.set(key, { value, expiresAtMs });
    },
    getOrSet(key, make, nowMs = Date.now()) {
      const known = cache.get(key, nowMs);
      if (known !== undefined) return known;
      const value = make();
      cache.set(key, value, { nowMs });
      return value;
    },
    delete(key) {
      entries.delete(key);
    },
    deleteWhere(matches) {
      for (const [key, entry] of entries) if (matches(entry.value, key)) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
  return cache;
}
