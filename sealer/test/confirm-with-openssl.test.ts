import { test } from "node:test";
import assert from "node:assert/strict";
import { startOpensslConfirmation } from "../src/tsa/confirm-with-openssl.ts";
import { TimestampUnavailableError } from "../src/tsa/authority.ts";
import { obtainTimestamp } from "../src/tsa/obtain-timestamp.ts";
import { simulatedAuthority } from "../src/tsa/simulated-authority.ts";
import { pem, pkiDir } from "./support.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const authority = () => simulatedAuthority(pkiDir, "tsa-test", "Simulated");

test("openssl, started before the token exists, confirms a token over the manifest it is then given", async () => {
  const confirmation = startOpensslConfirmation(authority().chainPem);
  const stamp = await obtainTimestamp(authority(), bytes("the manifest"));
  await confirmation.confirm(stamp.response, bytes("the manifest"));
});

test("openssl refuses a token over other data, and one that does not chain to the given roots", async () => {
  const stamp = await obtainTimestamp(authority(), bytes("the manifest"));
  await assert.rejects(startOpensslConfirmation(authority().chainPem).confirm(stamp.response, bytes("another manifest")), TimestampUnavailableError);
  await assert.rejects(startOpensslConfirmation(pem("c2pa-root.pem")).confirm(stamp.response, bytes("the manifest")), TimestampUnavailableError);
});

test("a confirmation cancelled before its token leaves no process waiting", async () => {
  const confirmation = startOpensslConfirmation(authority().chainPem);
  let timer: NodeJS.Timeout | undefined;
  const stillWaiting = new Promise<string>((settle) => (timer = setTimeout(() => settle("still waiting"), 5_000)));
  assert.equal(await Promise.race([confirmation.cancel().then(() => "gone"), stillWaiting]), "gone");
  clearTimeout(timer);
});
