import { describe, expect, it } from "vitest";
import { checkTimestamp } from "../../src/verification/timestamp-check.ts";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_TSR_BASE64, OTHER_ROOT_PEM } from "./fixtures/sealed-proof.ts";

const manifest = new TextEncoder().encode(FIXTURE_MANIFEST);

const tsr = Uint8Array.from(atob(FIXTURE_TSR_BASE64), (c) => c.charCodeAt(0));

describe("re-checking a timestamp inside the Worker", () => {
  it("accepts the authority's token for its manifest digest and chain", async () => {
    const check = await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM);
    expect(check).toMatchObject({ signatureValid: true, imprintMatches: true, chainTrusted: true });
    expect(check.genTime).toMatch(/^20\d\d-/);
  });

  it("refuses another digest, another root and a tampered token", async () => {
    expect((await checkTimestamp(tsr, new TextEncoder().encode("{}"), FIXTURE_CHAIN_PEM)).imprintMatches).toBe(false);
    expect((await checkTimestamp(tsr, manifest, OTHER_ROOT_PEM)).chainTrusted).toBe(false);
    const tampered = tsr.slice();
    tampered[Math.floor(tampered.length / 2)]! ^= 0x01;
    const check = await checkTimestamp(tampered, manifest, FIXTURE_CHAIN_PEM);
    expect(check.signatureValid && check.imprintMatches && check.chainTrusted).toBe(false);
  });
});
