import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveArchiveTimestamp } from "../src/archive-timestamp-endpoint.ts";
import { ensureLocalPki } from "../src/pki/ensure-local-pki.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { ArchiveTimestampAnswerSchema } from "../../shared/archive-timestamp-protocol.ts";
import { parseProtocolMessage, SEALER_PROTOCOL_VERSION, SealerErrorSchema } from "../../shared/sealer-protocol.ts";
import { checkTimestamp, hex } from "../../shared/timestamp-check.ts";

const pkiDir = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "archive-timestamp-")), "pki"));
const authorities = {
  test: simulatedAuthority(pkiDir, "tsa-test", "Simulated TSA"),
  live: simulatedAuthority(pkiDir, "tsa-live", "Local Timestamp Authority"),
};
const asked: string[] = [];
const endpoint = createServer((req, res) => {
  void serveArchiveTimestamp(req, res, (mode) => {
    asked.push(mode);
    return authorities[mode];
  });
});
await new Promise<void>((done) => endpoint.listen(0, "127.0.0.1", done));
after(() => endpoint.close());
const url = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/archive-timestamp`;
const post = (body: unknown) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const root = hex(crypto.getRandomValues(new Uint8Array(32)));

test("one timestamp over a hash tree's root: the root is the token's imprint itself, from the mode's authority, checked and answered by the protocol", async () => {
  const response = await post({ protocol_version: SEALER_PROTOCOL_VERSION, mode: "live", hash: "SHA-256", root, leaves: 250 });
  assert.equal(response.status, 200);
  const answer = parseProtocolMessage(ArchiveTimestampAnswerSchema, await response.text());
  assert.ok(answer.ok, answer.ok ? "" : answer.problem);
  const token = new Uint8Array(Buffer.from(answer.value.token_base64, "base64"));
  const check = await checkTimestamp(token, new Uint8Array(), authorities.live.chainPem, { imprint: Buffer.from(root, "hex") });
  assert.ok(check.granted && check.imprintMatches && check.signatureValid && check.chainTrusted, JSON.stringify(check));
  assert.equal(check.genTime, answer.value.gen_time);
  assert.equal(answer.value.signer_not_after, check.signerNotAfter);
  assert.ok(Date.parse(answer.value.signer_not_after) > Date.now());
  assert.equal(answer.value.authority, "Local Timestamp Authority");
  assert.deepEqual(asked.at(-1), "live");
});

test("SHA-512 roots are timestamped with a SHA-512 imprint (a hash-tree renewal's algorithm)", async () => {
  const root512 = hex(crypto.getRandomValues(new Uint8Array(64)));
  const response = await post({ protocol_version: SEALER_PROTOCOL_VERSION, mode: "test", hash: "SHA-512", root: root512, leaves: 1 });
  assert.equal(response.status, 200);
  const answer = parseProtocolMessage(ArchiveTimestampAnswerSchema, await response.text());
  assert.ok(answer.ok);
  const check = await checkTimestamp(new Uint8Array(Buffer.from(answer.value.token_base64, "base64")), new Uint8Array(), authorities.test.chainPem, {
    imprint: Buffer.from(root512, "hex"),
  });
  assert.ok(check.imprintMatches && check.chainTrusted);
  assert.equal(asked.at(-1), "test");
});

test("a request the protocol does not allow is refused with 400 before any authority is asked", async () => {
  const before = asked.length;
  for (const body of [
    { protocol_version: SEALER_PROTOCOL_VERSION, mode: "live", hash: "SHA-256", root: root.slice(2), leaves: 1 },
    { protocol_version: SEALER_PROTOCOL_VERSION, mode: "live", hash: "MD5", root, leaves: 1 },
    { protocol_version: SEALER_PROTOCOL_VERSION, mode: "demo", hash: "SHA-256", root, leaves: 1 },
    { protocol_version: SEALER_PROTOCOL_VERSION - 1, mode: "live", hash: "SHA-256", root, leaves: 1 },
  ]) {
    const response = await post(body);
    assert.equal(response.status, 400);
    const error = SealerErrorSchema.parse(await response.json());
    assert.match(error.code, /^(invalid_job|unsupported_protocol_version)$/);
  }
  assert.equal(asked.length, before);
});
