import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { serveSealJob } from "../src/seal-endpoint.ts";
import { ByteBudget } from "../src/byte-budget.ts";
import type { SealContext } from "../src/seal-job.ts";
import { parseProtocolMessage, SealAnswerSchema, SEALER_PROTOCOL_VERSION, SealerErrorSchema } from "../../shared/sealer-protocol.ts";
import { sealContext } from "./support.ts";
import { job, sealRequestBody, written } from "./storage-stand-in.ts";

/** The /seal endpoint on loopback, counting the jobs it started (a refused job starts none). */
const started = { count: 0 };
const context: SealContext = { ...sealContext(), budget: new ByteBudget(64 * 1024 * 1024) };
const endpoint = createServer((req, res) => {
  void serveSealJob(req, res, () => {
    started.count++;
    return context;
  });
});
await new Promise<void>((done) => endpoint.listen(0, "127.0.0.1", done));
after(() => endpoint.close());
const sealUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/seal`;

const post = (body: string) => fetch(sealUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body });

/** A refusal: the status, the protocol's error body, and no job started. */
async function assertRefused(body: string, status: number, code: string, problem: RegExp): Promise<void> {
  const before = started.count;
  const response = await post(body);
  assert.equal(response.status, status);
  const error = SealerErrorSchema.parse(await response.json());
  assert.equal(error.code, code);
  assert.match(error.message, problem);
  assert.equal(started.count, before, "nothing ran for a job that cannot be read");
}

test("a job round-trips: the Worker's request parses, and the answer follows the protocol with its version", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  const response = await post(sealRequestBody(sealJob));
  assert.equal(response.status, 200);
  const answer = parseProtocolMessage(SealAnswerSchema, await response.text());
  assert.ok(answer.ok, answer.ok ? "" : answer.problem);
  assert.equal(answer.value.protocol_version, SEALER_PROTOCOL_VERSION);
  assert.equal(answer.value.status, "sealed");
  assert.ok(written.has(`/signed/${sealJob.files[0]!.id}`));
});

test("a malformed job is refused with 400 invalid_job naming each faulty field, before anything runs", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  const faulty = { ...sealJob, proof: { ...sealJob.proof, mode: "demo" }, files: [{ ...sealJob.files[0]!, sha256: "not-a-hash", size: -1 }] };
  await assertRefused(
    JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...faulty }),
    400,
    "invalid_job",
    /proof\.mode: .*files\.0\.size: .*files\.0\.sha256: /,
  );
});

test("a job with a field this version does not know, or missing one, is refused rather than half read", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  await assertRefused(JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...sealJob, priority: "high" }), 400, "invalid_job", /priority/);
  const { deadline: _deadline, ...withoutDeadline } = sealJob;
  await assertRefused(JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...withoutDeadline }), 400, "invalid_job", /deadline: /);
});

test("a job of another protocol version, or without one, is refused as such", async () => {
  const sealJob = job([{ name: "photo.jpg", type: "image/jpeg" }]);
  await assertRefused(
    JSON.stringify({ ...sealJob, protocol_version: SEALER_PROTOCOL_VERSION + 1 }),
    400,
    "unsupported_protocol_version",
    new RegExp(`protocol_version ${SEALER_PROTOCOL_VERSION + 1}, expected ${SEALER_PROTOCOL_VERSION}`),
  );
  await assertRefused(JSON.stringify(sealJob), 400, "unsupported_protocol_version", new RegExp(`protocol_version null, expected ${SEALER_PROTOCOL_VERSION}`));
});

test("a body that is not JSON is refused with 400, one over the job size limit with 413", async () => {
  await assertRefused('{"proof":', 400, "invalid_job", /not JSON/);
  await assertRefused(JSON.stringify({ padding: "x".repeat(3 * 1024 * 1024) }), 413, "job_too_large", /larger than/);
});
