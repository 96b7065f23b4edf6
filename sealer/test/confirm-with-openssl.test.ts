import { test } from "node:test";
import assert from "node:assert/strict";
import { confirmWithOpenssl } from "../src/tsa/confirm-with-openssl.ts";
import { TimestampUnavailableError } from "../src/tsa/authority.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { pem, pkiDir } from "./support.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const authority = simulatedAuthority(pkiDir, "tsa-test", "Simulated");

test("openssl confirms tokens over their manifests, several at once through the one runner", async () => {
  const manifests = ["first", "second", "third"].map(bytes);
  const stamps = await Promise.all(manifests.map((manifest) => obtainTimestamp(authority, manifest)));
  await Promise.all(stamps.map((stamp, i) => confirmWithOpenssl(stamp.response, manifests[i]!, authority.chainPem)));
});

test("openssl refuses a token over other data, and one that does not chain to the given roots", async () => {
  const stamp = await obtainTimestamp(authority, bytes("the manifest"));
  await assert.rejects(confirmWithOpenssl(stamp.response, bytes("another manifest"), authority.chainPem), TimestampUnavailableError);
  await assert.rejects(confirmWithOpenssl(stamp.response, bytes("the manifest"), pem("c2pa-root.pem")), TimestampUnavailableError);
  // Refusals leave the runner able to confirm the next token.
  await confirmWithOpenssl(stamp.response, bytes("the manifest"), authority.chainPem);
});
