import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { randomBytes } from "node:crypto";
import { storageGet, storageSend } from "../src/storage-request.ts";

const body = randomBytes(300_000);
const received: { method: string; length: number }[] = [];
const server = createServer(async (req, res) => {
  if (req.method !== "GET") {
    let length = 0;
    for await (const chunk of req) length += (chunk as Buffer).length;
    received.push({ method: req.method ?? "", length });
    return res.writeHead(req.url === "/refuse" ? 403 : 200).end("ignored answer");
  }
  if (req.url === "/announced") return res.writeHead(200, { "Content-Length": body.length }).end(body);
  if (req.url === "/chunked") {
    res.writeHead(200);
    res.write(body.subarray(0, 1000));
    return res.end(body.subarray(1000));
  }
  if (req.url === "/cut") {
    // Announces the whole body, sends half, then drops the connection.
    res.writeHead(200, { "Content-Length": body.length });
    res.write(body.subarray(0, body.length / 2));
    return setTimeout(() => res.destroy(), 20);
  }
  res.writeHead(404).end("not here");
});
await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
after(() => server.close());
const signal = () => AbortSignal.timeout(10_000);

test("reads a body of announced length into a buffer of its own, which a signing thread can take without a copy", async () => {
  const { status, body: read } = await storageGet(`${base}/announced`, undefined, signal());
  assert.equal(status, 200);
  assert.deepEqual(Buffer.from(read), body);
  assert.equal(read.byteOffset, 0);
  assert.equal(read.buffer.byteLength, body.length);
});

test("reads a body sent without a length", async () => {
  const { body: read } = await storageGet(`${base}/chunked`, undefined, signal());
  assert.deepEqual(Buffer.from(read), body);
});

test("a body cut short is an error, never a shorter file", async () => {
  await assert.rejects(storageGet(`${base}/cut`, undefined, signal()));
});

test("a refusal gives its status and no body", async () => {
  const { status, body: read } = await storageGet(`${base}/missing`, undefined, signal());
  assert.equal(status, 404);
  assert.equal(read.length, 0);
});

test("writes a body with its length and deletes without one, answering the status", async () => {
  assert.equal(await storageSend(`${base}/copy`, "PUT", { "Content-Type": "image/jpeg" }, body, signal()), 200);
  assert.equal(await storageSend(`${base}/refuse`, "PUT", {}, body, signal()), 403);
  assert.equal(await storageSend(`${base}/copy`, "DELETE", {}, null, signal()), 200);
  assert.deepEqual(received, [
    { method: "PUT", length: body.length },
    { method: "PUT", length: body.length },
    { method: "DELETE", length: 0 },
  ]);
});

test("an aborted request rejects with the abort", async () => {
  const controller = new AbortController();
  controller.abort(new Error("job aborted"));
  await assert.rejects(storageGet(`${base}/announced`, undefined, controller.signal));
});
