import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { signWebhook, verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookVerificationReason } from "../src/index.ts";

const OLD = "whsec_old_0123456789abcdefghijklmnopqrstuv";
const NEW = "whsec_new_abcdefghijklmnopqrstuv0123456789";
const T = 1_795_000_000;
const NOW = T * 1000;
const body = JSON.stringify({
  event: "proof.sealed",
  proof_id: "prf_1",
  session_id: "cps_1",
  external_reference: "rental-42",
  party: "provider",
  stage: null,
  compare_to: null,
  manifest_sha256: "ab".repeat(32),
  timestamp: { gen_time: "2026-11-26T16:00:00Z", qualified: false },
  sealed_at: "2026-11-26T16:00:01Z",
});

/** The service's own signer (src/webhooks/signature.ts), loaded by path so the SDK's type check stays out of the Worker. */
const service: { signatureHeader: (body: string, secrets: string[], unixSeconds: number) => Promise<string> } = await import(
  pathToFileURL(resolve(import.meta.dirname, "../../src/webhooks/signature.ts")).href
);

const refused = (reason: WebhookVerificationReason) => (error: unknown) => error instanceof WebhookVerificationError && error.reason === reason;

describe("webhooks.verify", () => {
  it("accepts what the service signs and returns the event, typed by its name", async () => {
    const header = await service.signatureHeader(body, [NEW], T);
    const event: WebhookEvent = await verifyWebhook(body, header, NEW, { now: NOW });
    assert.equal(event.event, "proof.sealed");
    if (event.event === "proof.sealed") assert.equal(event.manifest_sha256, "ab".repeat(32));
    // The raw bytes work as well as the string.
    assert.equal((await verifyWebhook(new TextEncoder().encode(body), header, NEW, { now: new Date(NOW) })).event, "proof.sealed");
  });

  it("follows the rule exactly: HMAC-SHA256, lower-case hex, of <t>.<raw body>, keyed with the whole secret, whsec_ included", async () => {
    const v1 = createHmac("sha256", NEW).update(`${T}.${body}`).digest("hex");
    assert.equal(await signWebhook(body, NEW, T), `t=${T},v1=${v1}`);
    await verifyWebhook(body, `t=${T},v1=${v1}`, NEW, { now: NOW });
    const withoutPrefix = createHmac("sha256", NEW.slice("whsec_".length)).update(`${T}.${body}`).digest("hex");
    await assert.rejects(verifyWebhook(body, `t=${T},v1=${withoutPrefix}`, NEW, { now: NOW }), refused("signature_mismatch"));
    await assert.rejects(verifyWebhook(body, `t=${T},v1=${v1.toUpperCase()}`, NEW, { now: NOW }), refused("signature_mismatch"));
  });

  it("refuses a tampered body, and a body parsed and serialised again", async () => {
    const header = await service.signatureHeader(body, [NEW], T);
    await assert.rejects(verifyWebhook(body.replace("prf_1", "prf_2"), header, NEW, { now: NOW }), refused("signature_mismatch"));
    await assert.rejects(verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), header, NEW, { now: NOW }), refused("signature_mismatch"));
    await assert.rejects(verifyWebhook(body, header.replace(`t=${T}`, `t=${T + 1}`), NEW, { now: NOW }), refused("signature_mismatch"));
  });

  it("refuses a stale or future t beyond the tolerance (300 s by default), and accepts it at the limit", async () => {
    const header = await service.signatureHeader(body, [NEW], T);
    await verifyWebhook(body, header, NEW, { now: NOW + 300_000 });
    await verifyWebhook(body, header, NEW, { now: NOW - 300_000 });
    await assert.rejects(verifyWebhook(body, header, NEW, { now: NOW + 301_000 }), refused("timestamp_outside_tolerance"));
    await assert.rejects(verifyWebhook(body, header, NEW, { now: NOW - 301_000 }), refused("timestamp_outside_tolerance"));
    await verifyWebhook(body, header, NEW, { now: NOW + 3_600_000, toleranceSeconds: 3600 });
    await assert.rejects(verifyWebhook(body, header, NEW, { now: NOW + 11_000, toleranceSeconds: 10 }), refused("timestamp_outside_tolerance"));
  });

  it("during a rotation accepts either secret, compares every v1; once the old secret expired, refuses it", async () => {
    const overlap = await service.signatureHeader(body, [OLD, NEW], T);
    assert.equal(overlap.split(",").length, 3);
    for (const secret of [OLD, NEW, [OLD, NEW], [NEW, OLD]]) await verifyWebhook(body, overlap, secret, { now: NOW });
    // After the old secret's expires_at the service signs with the new one only.
    const afterExpiry = await service.signatureHeader(body, [NEW], T);
    await assert.rejects(verifyWebhook(body, afterExpiry, OLD, { now: NOW }), refused("signature_mismatch"));
    await verifyWebhook(body, afterExpiry, [OLD, NEW], { now: NOW });
    // A valid v1 after an invalid one still counts: every v1 is compared.
    const valid = afterExpiry.split(",")[1]!;
    await verifyWebhook(body, `t=${T},v1=${"0".repeat(64)},v0=ignored,${valid}`, NEW, { now: NOW });
  });

  it("refuses a missing header, a missing or repeated t and a header without v1", async () => {
    const valid = (await service.signatureHeader(body, [NEW], T)).split(",")[1]!;
    await assert.rejects(verifyWebhook(body, undefined, NEW, { now: NOW }), refused("missing_header"));
    await assert.rejects(verifyWebhook(body, valid, NEW, { now: NOW }), refused("missing_timestamp"));
    await assert.rejects(verifyWebhook(body, `t=${T},t=${T - 1000},${valid}`, NEW, { now: NOW }), refused("missing_timestamp"));
    await assert.rejects(verifyWebhook(body, `t=abc,${valid}`, NEW, { now: NOW }), refused("missing_timestamp"));
    await assert.rejects(verifyWebhook(body, `t=${T}`, NEW, { now: NOW }), refused("no_signatures"));
    await assert.rejects(verifyWebhook(body, `t=${T},${valid}`, [], { now: NOW }), TypeError);
  });
});
