import { test, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { runSealJob } from "../src/seal-job.ts";
import { JobAbortedError } from "../src/job-abort.ts";
import { serveSealJob } from "../src/seal-endpoint.ts";
import { ByteBudget } from "../src/byte-budget.ts";
import { readBody } from "../src/http.ts";
import { httpAuthority } from "../src/tsa/authority.ts";
import type { SealContext } from "../src/seal-job.ts";
import { sealContext } from "./support.ts";
import { deleted, job, sealRequestBody, storageHooks, written } from "./storage-stand-in.ts";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  after(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** The simulated authority behind HTTP, as a live one is reached, counting the requests it receives. */
const local = sealContext().authority;
const authorityRequests = { count: 0 };
const authorityUrl = await listen(
  createServer(async (req, res) => {
    authorityRequests.count++;
    const reply = await local.respond(new Uint8Array(await readBody(req, 64 * 1024)));
    res.writeHead(200, { "Content-Type": "application/timestamp-reply" }).end(Buffer.from(reply));
  }),
);

/** One file at a time (a budget smaller than any file), so a job is stopped after its first file. */
function oneFileAtATime(): SealContext & { budget: ByteBudget } {
  return { ...sealContext(), authority: httpAuthority(authorityUrl, "Counting TSA", local.chainPem, ""), budget: new ByteBudget(1) };
}

const fourPhotos = () => job(Array.from({ length: 4 }, () => ({ name: "photo.jpg", type: "image/jpeg" })));
const pause = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 10_000) assert.fail(`never happened: ${what}`);
    await pause(20);
  }
}

/** Nothing more is asked of the authority once the job has stopped. */
async function assertNoFurtherTimestamps(countAtStop: number): Promise<void> {
  await pause(500);
  assert.equal(authorityRequests.count, countAtStop);
}

afterEach(() => {
  delete storageHooks.onPut;
});

test("a caller that disconnects aborts its job: budget given back, no more timestamps, its written copy deleted", async () => {
  const context = oneFileAtATime();
  const sealer = await listen(createServer((req, res) => void serveSealJob(req, res, () => context)));
  const sealJob = fourPhotos();
  const first = `/signed/${sealJob.files[0]!.id}`;
  const caller = new AbortController();
  // The Worker gives up just as the first signed copy reaches storage.
  storageHooks.onPut = () => caller.abort();
  const before = authorityRequests.count;

  await assert.rejects(fetch(`${sealer}/seal`, { method: "POST", body: sealRequestBody(sealJob), signal: caller.signal }));

  await eventually(() => deleted.includes(first), "the written copy deleted");
  assert.equal(authorityRequests.count - before, 1, "one timestamp: the first file's signature, none for the other files or the manifest");
  await assertNoFurtherTimestamps(authorityRequests.count);
  assert.equal(context.budget.inUse, 0);
  assert.ok(sealJob.files.every((file) => !written.has(`/signed/${file.id}`)));
});

test("a job whose deadline passes stops the same way, even when the caller is still connected", async () => {
  const context = oneFileAtATime();
  const sealJob = { ...fourPhotos(), deadline: new Date(Date.now() + 3000).toISOString() };
  // Storage is slow to confirm the first copy: the deadline passes meanwhile.
  storageHooks.onPut = () => pause(5000);
  const before = authorityRequests.count;

  await assert.rejects(runSealJob(context, sealJob), (error: Error) => error instanceof JobAbortedError && /deadline/.test(error.message));

  assert.ok(deleted.includes(`/signed/${sealJob.files[0]!.id}`), "the copy written before the deadline is deleted");
  assert.equal(authorityRequests.count - before, 1);
  await assertNoFurtherTimestamps(authorityRequests.count);
  assert.equal(context.budget.inUse, 0);
});

test("a job that arrives after its deadline does nothing at all", async () => {
  const context = oneFileAtATime();
  const sealJob = { ...fourPhotos(), deadline: new Date(Date.now() - 1000).toISOString() };
  const before = authorityRequests.count;
  await assert.rejects(runSealJob(context, sealJob), JobAbortedError);
  assert.equal(authorityRequests.count, before);
  assert.equal(context.budget.inUse, 0);
  assert.ok(sealJob.files.every((file) => !written.has(`/signed/${file.id}`)));
});

test("a job that ends failed deletes the copies it wrote before the bad file was found", async () => {
  const context = oneFileAtATime();
  const sealJob = job([
    { name: "photo.jpg", type: "image/jpeg" },
    { name: "photo.png", type: "image/jpeg" },
  ]);
  const result = await runSealJob(context, sealJob);
  assert.equal(result.status === "failed" && result.code, "file_type_mismatch");
  assert.ok(deleted.includes(`/signed/${sealJob.files[0]!.id}`));
  assert.equal(written.has(`/signed/${sealJob.files[0]!.id}`), false);
  assert.equal(context.budget.inUse, 0);
});
