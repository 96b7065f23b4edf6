import { describe, expect, it } from "vitest";
import { boundedCache } from "../../shared/bounded-cache.ts";

describe("boundedCache", () => {
  it("keeps at most maxEntries, dropping the oldest stored first, whatever was read since", () => {
    const cache = boundedCache<string, number>({ maxEntries: 3 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect(cache.get("a")).toBe(1);
    cache.set("d", 4);
    expect(cache.size).toBe(3);
    expect(cache.get("a")).toBeUndefined();
    expect([cache.get("b"), cache.get("c"), cache.get("d")]).toEqual([2, 3, 4]);
  });

  it("makes a value stored again the newest", () => {
    const cache = boundedCache<string, number>({ maxEntries: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 10);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(10);
    expect(cache.get("c")).toBe(3);
  });

  it("forgets an entry ttlMs after it was stored, or at the expiry set gives it", () => {
    const cache = boundedCache<string, string>({ maxEntries: 10, ttlMs: 1_000 });
    cache.set("a", "x", { nowMs: 5_000 });
    expect(cache.get("a", 5_999)).toBe("x");
    expect(cache.get("a", 6_000)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set("b", "y", { nowMs: 5_000, expiresAtMs: 5_100 });
    expect(cache.get("b", 5_099)).toBe("y");
    expect(cache.get("b", 5_100)).toBeUndefined();
  });

  it("without ttlMs keeps an entry until it is dropped for room", () => {
    const cache = boundedCache<string, number>({ maxEntries: 1 });
    cache.set("a", 1, { nowMs: 0 });
    expect(cache.get("a", Number.MAX_SAFE_INTEGER)).toBe(1);
  });

  it("makes a missing or expired value once with getOrSet", () => {
    const cache = boundedCache<string, number>({ maxEntries: 2, ttlMs: 100 });
    let made = 0;
    const make = () => ++made;
    expect(cache.getOrSet("a", make, 0)).toBe(1);
    expect(cache.getOrSet("a", make, 50)).toBe(1);
    expect(cache.getOrSet("a", make, 100)).toBe(2);
    expect(made).toBe(2);
  });

  it("deletes one entry, or every entry that matches", () => {
    const cache = boundedCache<string, { owner: string }>({ maxEntries: 5 });
    cache.set("a", { owner: "x" });
    cache.set("b", { owner: "y" });
    cache.set("c", { owner: "x" });
    cache.deleteWhere((value) => value.owner === "x");
    expect(cache.size).toBe(1);
    cache.delete("b");
    expect(cache.size).toBe(0);
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => boundedCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});
