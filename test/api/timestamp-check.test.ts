import { describe, expect, it } from "vitest";
import { checkTimestamp, TimestampCheckReuse } from "../../shared/timestamp-check.ts";
import identrustRoot from "./fixtures/public-timestamps/identrust-root.pem?raw";
import identrustTsr from "./fixtures/public-timestamps/identrust-sha512.tsr.base64?raw";
import sigstageChain from "./fixtures/public-timestamps/sigstage-chain.pem?raw";
import sigstageNoCertTsr from "./fixtures/public-timestamps/sigstage-no-embedded-cert.tsr.base64?raw";
import sigstageTsr from "./fixtures/public-timestamps/sigstage-sha256.tsr.base64?raw";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_TSR_BASE64, OTHER_ROOT_PEM } from "./fixtures/sealed-proof.ts";

const manifest = new TextEncoder().encode(FIXTURE_MANIFEST);

const fromBase64 = (text: string) => Uint8Array.from(atob(text.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
const tsr = fromBase64(FIXTURE_TSR_BASE64);
const hello = new TextEncoder().encode("hello");
/** Every property that does not depend on the data: a mismatch of the data must leave them all true. */
const allButData = { granted: true, signatureValid: true, chainTrusted: true, signerCertifiedForTimestamping: true, signerCertificateBound: true };
const [sigstageSigner, sigstageRoot] = sigstageChain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)!;

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

  it("reports other data as a data mismatch only, never as a bad signature, signer or chain", async () => {
    expect(await checkTimestamp(tsr, new TextEncoder().encode("{}"), FIXTURE_CHAIN_PEM)).toMatchObject({ ...allButData, imprintMatches: false });
    expect(await checkTimestamp(fromBase64(sigstageTsr), new TextEncoder().encode("hellO"), sigstageChain)).toMatchObject({ ...allButData, imprintMatches: false });
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

  describe("real tokens of public authorities (test/api/fixtures/public-timestamps/README.md)", () => {
    it("accepts the Sigstore staging authority's ECDSA token and names the root it chains to", async () => {
      const check = await checkTimestamp(fromBase64(sigstageTsr), hello, sigstageChain);
      expect(check).toMatchObject({ ...allButData, imprintMatches: true, genTime: "2025-05-09T11:58:55.000Z", serial: "0x784B4C5E57AAA63B570F15CBA4DF95251668AE9E", policy: "1.3.6.1.4.1.57264.2" });
      expect(check.rootCertificate).not.toBeNull();
    });

    it("accepts IdenTrust's RSA token with a SHA-512 imprint, its intermediate carried in the token", async () => {
      const check = await checkTimestamp(fromBase64(identrustTsr), hello, identrustRoot);
      expect(check).toMatchObject({ ...allButData, imprintMatches: true, genTime: "2025-03-11T08:52:08.000Z", serial: "0x400195846778D8EBD3E0D31354082A24" });
      expect((await checkTimestamp(fromBase64(identrustTsr), hello, sigstageRoot!)).chainTrusted).toBe(false);
    });

    it("accepts a token without certificates when the chain supplies the signer's (as openssl ts -verify -untrusted)", async () => {
      const noCert = fromBase64(sigstageNoCertTsr);
      expect(await checkTimestamp(noCert, hello, sigstageChain)).toMatchObject({ ...allButData, imprintMatches: true, genTime: "2025-06-18T08:13:02.000Z" });
      // Without the signer's certificate nothing can be verified, and the signer alone is never a trust anchor.
      expect(await checkTimestamp(noCert, hello, sigstageRoot!)).toMatchObject({ imprintMatches: true, signatureValid: false, chainTrusted: false });
      expect((await checkTimestamp(noCert, hello, sigstageSigner!)).chainTrusted).toBe(false);
    });
  });

  describe("checking many tokens with what the previous checks found (TimestampCheckReuse, as the sealer does)", () => {
    const cases = [
      { tsr, data: manifest, chain: FIXTURE_CHAIN_PEM },
      { tsr: fromBase64(sigstageTsr), data: hello, chain: sigstageChain },
      { tsr: fromBase64(identrustTsr), data: hello, chain: identrustRoot },
      { tsr: fromBase64(sigstageNoCertTsr), data: hello, chain: sigstageChain },
    ];

    it("gives every verdict a fresh check gives, the second time as the first", async () => {
      const reuse = new TimestampCheckReuse();
      for (const { tsr: token, data, chain } of cases) {
        const fresh = await checkTimestamp(token, data, chain);
        expect(fresh).toMatchObject({ ...allButData, imprintMatches: true });
        for (let round = 0; round < 2; round++) expect(await checkTimestamp(token, data, chain, { reuse })).toEqual(fresh);
      }
    });

    it("still checks each token's own signature and imprint, and the chain against the roots given, once the chain is known", async () => {
      const reuse = new TimestampCheckReuse();
      expect((await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM, { reuse })).chainTrusted).toBe(true);
      const tampered = tsr.slice();
      tampered[tsr.length - 5]! ^= 0x01;
      expect(await checkTimestamp(tampered, manifest, FIXTURE_CHAIN_PEM, { reuse })).toMatchObject({ signatureValid: false, chainTrusted: true });
      expect((await checkTimestamp(tsr, new TextEncoder().encode("{}"), FIXTURE_CHAIN_PEM, { reuse })).imprintMatches).toBe(false);
      expect((await checkTimestamp(tsr, manifest, OTHER_ROOT_PEM, { reuse })).chainTrusted).toBe(false);
      // The same key's signature over other attributes: the imported key is reused, the signature is not.
      const sigstage = fromBase64(sigstageTsr);
      expect((await checkTimestamp(sigstage, hello, sigstageChain, { reuse })).signatureValid).toBe(true);
      const otherSignature = sigstage.slice();
      otherSignature[sigstage.length - 5]! ^= 0x01;
      expect((await checkTimestamp(otherSignature, hello, sigstageChain, { reuse })).signatureValid).toBe(false);
    });

    it("still binds each token's TSTInfo to its signature once the chain is known: a changed genTime is a bad signature", async () => {
      const reuse = new TimestampCheckReuse();
      for (const { tsr: token, data, chain } of cases.slice(0, 2)) {
        expect((await checkTimestamp(token, data, chain, { reuse })).chainTrusted).toBe(true);
        // The genTime's last digit, inside the signed TSTInfo (GeneralizedTime: tag 0x18, length, "2…", "Z").
        const tag = token.findIndex((byte, i) => byte === 0x18 && token[i + 2] === 0x32 && token[i + 1 + token[i + 1]!] === 0x5a);
        const lastDigit = tag + token[tag + 1]!;
        const moved = token.slice();
        moved[lastDigit] = moved[lastDigit] === 0x30 ? 0x31 : 0x30;
        expect(await checkTimestamp(moved, data, chain, { reuse })).toMatchObject({ granted: true, signatureValid: false, imprintMatches: true });
      }
    });

    it("validates the chain afresh at an instant outside a certificate's validity, where it is not trusted", async () => {
      const reuse = new TimestampCheckReuse();
      const sigstage = fromBase64(sigstageTsr);
      expect((await checkTimestamp(sigstage, hello, sigstageChain, { reuse })).chainTrusted).toBe(true);
      for (const at of [new Date("2000-01-01T00:00:00Z"), new Date("2200-01-01T00:00:00Z")]) {
        expect(await checkTimestamp(sigstage, hello, sigstageChain, { reuse, at })).toMatchObject({ signatureValid: true, chainTrusted: false, rootCertificate: null });
      }
    });
  });
});
