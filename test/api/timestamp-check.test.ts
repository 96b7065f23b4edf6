import { describe, expect, it } from "vitest";
import { checkTimestamp } from "../../shared/timestamp-check.ts";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_TSR_BASE64, OTHER_ROOT_PEM } from "./fixtures/sealed-proof.ts";

const manifest = new TextEncoder().encode(FIXTURE_MANIFEST);

const tsr = Uint8Array.from(atob(FIXTURE_TSR_BASE64), (c) => c.charCodeAt(0));

describe("re-checking a timestamp inside the Worker", () => {
  it("accepts the authority's token for its manifest digest and chain", async () => {
    const check = await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM);
    expect(check).toMatchObject({
      granted: true,
      signatureValid: true,
      imprintMatches: true,
      chainTrusted: true,
      signerCertifiedForTimestamping: true,
      signerCertificateBound: true,
      policy: "1.3.6.1.4.1.99999.1.1",
    });
    expect(check.genTime).toMatch(/^20\d\d-/);
    expect(check.serial).toMatch(/^0x[0-9A-F]+$/);
    // The token is the TimeStampResp's second element, byte for byte.
    expect(new Uint8Array(tsr.subarray(tsr.length - check.token!.length))).toEqual(check.token);
  });

  it("refuses another digest, another root and a tampered token", async () => {
    expect((await checkTimestamp(tsr, new TextEncoder().encode("{}"), FIXTURE_CHAIN_PEM)).imprintMatches).toBe(false);
    expect((await checkTimestamp(tsr, manifest, OTHER_ROOT_PEM)).chainTrusted).toBe(false);
    // A byte of the signed TSTInfo (its genTime), then a byte of the signature itself (the token's last bytes).
    const genTime = new TextEncoder().encode((await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM)).genTime!.slice(0, 4));
    const at = tsr.findIndex((_, i) => genTime.every((byte, j) => tsr[i + j] === byte));
    for (const index of [at + 3, tsr.length - 5]) {
      const tampered = tsr.slice();
      tampered[index]! ^= 0x01;
      expect((await checkTimestamp(tampered, manifest, FIXTURE_CHAIN_PEM)).signatureValid).toBe(false);
    }
  });
});
