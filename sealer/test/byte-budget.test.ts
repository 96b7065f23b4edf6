import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteBudget } from "../src/byte-budget.ts";

const pause = () => new Promise((done) => setTimeout(done, 1));

test("many concurrent files never hold more bytes than the budget", async () => {
  const budget = new ByteBudget(100);
  let peak = 0;
  await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const release = await budget.acquire(10 + (i % 5) * 15);
      peak = Math.max(peak, budget.inUse);
      await pause();
      release();
    }),
  );
  assert.ok(peak <= 100, `peak ${peak}`);
  assert.equal(budget.inUse, 0);
});

test("a file larger than the whole budget runs alone, and is not starved by smaller ones queued after it", async () => {
  const budget = new ByteBudget(100);
  const order: string[] = [];
  const small = await budget.acquire(60);
  const video = budget.acquire(500).then((release) => {
    order.push(`video with ${budget.inUse} in use`);
    return release;
  });
  const photo = budget.acquire(30).then((release) => {
    order.push("photo");
    return release;
  });
  await pause();
  assert.deepEqual(order, []);
  small();
  (await video)();
  (await photo)();
  assert.deepEqual(order, ["video with 100 in use", "photo"]);
});

test("releasing twice gives the bytes back once", async () => {
  const budget = new ByteBudget(100);
  const release = await budget.acquire(70);
  release();
  release();
  assert.equal(budget.inUse, 0);
});

test("a job aborted while it waits leaves the queue: it never gets the bytes, and those behind it are not blocked", async () => {
  const budget = new ByteBudget(100);
  const held = await budget.acquire(80);
  const aborted = new AbortController();
  const large = budget.acquire(90, aborted.signal);
  const small = budget.acquire(20);
  aborted.abort(new Error("caller gone"));
  await assert.rejects(large, /caller gone/);
  const releaseSmall = await small;
  assert.equal(budget.inUse, 100);
  held();
  releaseSmall();
  assert.equal(budget.inUse, 0);
  await assert.rejects(budget.acquire(1, aborted.signal), /caller gone/);
  assert.equal(budget.inUse, 0);
});
