import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { checkTimestamp, TimestampCheckReuse } from "../../shared/timestamp-check.ts";
import identrustRoot from "./fixtures/public-timestamps/identrust-root.pem?raw";
import identrustTsr from "./fixtures/public-timestamps/identrust-sha512.tsr.base64?raw";
import sigstageChain from "./fixtures/public-timestamps/sigstage-chain.pem?raw";
import sigstageNoCertTsr from "./fixtures/public-timestamps/sigstage-no-embedded-cert.tsr.base64?raw";
import sigstageTsr from "./fixtures/public-timestamps/sigstage-sha256.tsr.base64?raw";
import { FIXTURE_CHAIN_PEM, FIXTURE_MANIFEST, FIXTURE_TSR_BASE64, OTHER_ROOT_PEM } from "./fixtures/sealed-proof.ts";

const manifest = new TextEncoder().encode(FIXTURE_MANIFEST);

const hexOf = (bytes: Uint8Array) => [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
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
    expect(await checkTimestamp(fromBase64(sigstageTsr), new TextEncoder().encode("hellO"), sigstageChain)).toMatchObject({
      ...allButData,
      imprintMatches: false,
    });
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
      expect(check).toMatchObject({
        ...allButData,
        imprintMatches: true,
        genTime: "2025-05-09T11:58:55.000Z",
        serial: "0x784B4C5E57AAA63B570F15CBA4DF95251668AE9E",
        policy: "1.3.6.1.4.1.57264.2",
      });
      expect(check.rootCertificate).not.toBeNull();
    });

    it("accepts IdenTrust's RSA token with a SHA-512 imprint, its intermediate carried in the token", async () => {
      const check = await checkTimestamp(fromBase64(identrustTsr), hello, identrustRoot);
      expect(check).toMatchObject({ ...allButData, imprintMatches: true, genTime: "2025-03-11T08:52:08.000Z", serial: "0x400195846778D8EBD3E0D31354082A24" });
      // The certificates it carries, as they are in the token: the signer's and its intermediate (the pool a revocation check builds the path from).
      expect(check.certificates).toHaveLength(2);
      expect(check.certificates).toContainEqual(check.signerCertificate);
      for (const certificate of check.certificates) expect(hexOf(fromBase64(identrustTsr))).toContain(hexOf(certificate));
      expect((await checkTimestamp(fromBase64(identrustTsr), hello, sigstageRoot!)).chainTrusted).toBe(false);
    });

    it("accepts a token without certificates when the chain supplies the signer's (as openssl ts -verify -untrusted)", async () => {
      const noCert = fromBase64(sigstageNoCertTsr);
      expect(await checkTimestamp(noCert, hello, sigstageChain)).toMatchObject({
        ...allButData,
        imprintMatches: true,
        genTime: "2025-06-18T08:13:02.000Z",
        certificates: [],
      });
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

    it("reads each token's TSTInfo as pkijs's TSTInfo class reads it", async () => {
      for (const { tsr: token, data, chain } of cases) {
        const response = pkijs.TimeStampResp.fromBER(token.slice().buffer);
        const eContent = new pkijs.SignedData({ schema: response.timeStampToken!.content }).encapContentInfo.eContent!;
        const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
        expect(await checkTimestamp(token, data, chain)).toMatchObject({
          genTime: tstInfo.genTime.toISOString(),
          serial: `0x${hexOf(new Uint8Array(tstInfo.serialNumber.valueBlock.valueHexView))
            .toUpperCase()
            .replace(/^(00)+(?=.)/, "")}`,
          policy: tstInfo.policy,
          nonceHex: tstInfo.nonce ? hexOf(new Uint8Array(tstInfo.nonce.valueBlock.valueHexView)) : null,
          imprintMatches: true,
        });
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

    it("refuses once the chain is known exactly what a fresh check refuses: unreadable digest algorithms or parameters, a response not granted", async () => {
      for (const { tsr: token, data, chain } of cases.slice(0, 2)) {
        const reuse = new TimestampCheckReuse();
        expect((await checkTimestamp(token, data, chain, { reuse })).chainTrusted).toBe(true);
        // The SignedData's digestAlgorithms SET follows its version 3 (INTEGER 3, then SET): its contents, 0xff byte for byte.
        const set = token.findIndex((byte, i) => byte === 0x02 && token[i + 1] === 0x01 && token[i + 2] === 0x03 && token[i + 3] === 0x31) + 3;
        const garbage = token.slice();
        garbage.fill(0xff, set + 2, set + 2 + token[set + 1]!);
        // PKIStatus 2 (rejection), the token still attached: the status INTEGER opens the response's first SEQUENCE.
        const rejected = token.slice();
        rejected[token.findIndex((byte, i) => byte === 0x30 && token[i + 1] === 0x03 && token[i + 2] === 0x02 && token[i + 3] === 0x01) + 4] = 2;
        // Parameters other than NULL in the SignerInfo's digestAlgorithm (unsigned): its NULL, when it has one, made 0xff 0xff.
        const sha256WithNull = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00];
        const signerDigest = token.findLastIndex((_, i) => sha256WithNull.every((byte, j) => token[i + j] === byte));
        const parameters = token.slice();
        parameters.fill(0xff, signerDigest + 11, signerDigest + 13);
        for (const changed of signerDigest === -1 ? [garbage, rejected] : [garbage, rejected, parameters]) {
          const fresh = await checkTimestamp(changed, data, chain);
          expect(fresh.granted && fresh.signatureValid).toBe(false);
          expect(await checkTimestamp(changed, data, chain, { reuse })).toEqual(fresh);
        }
      }
    });

    it("refuses every token whose SignedData pkijs's own SignedData class refuses (each byte of its structure changed in turn)", async () => {
      const reuse = new TimestampCheckReuse();
      expect((await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM, { reuse })).chainTrusted).toBe(true);
      const pkijsReadsSignedData = (bytes: Uint8Array) => {
        try {
          new pkijs.SignedData({ schema: pkijs.TimeStampResp.fromBER(bytes.slice().buffer).timeStampToken!.content });
          return true;
        } catch {
          return false;
        }
      };
      // The SignedData's own fields and the headers of the certificates, the TSTInfo and the SignerInfo, whose
      // contents pkijs's Certificate, TSTInfo and SignerInfo classes read as they always did.
      const response = asn1js.fromBER(tsr.slice()).result as asn1js.Sequence;
      const signedData = ((response.valueBlock.value[1] as asn1js.Sequence).valueBlock.value[1] as asn1js.Constructed).valueBlock.value[0] as asn1js.Sequence;
      const start = (block: asn1js.AsnType) => block.valueBeforeDecodeView.byteOffset;
      const headerEnd = (block: asn1js.AsnType) => start(block) + block.idBlock.blockLength + block.lenBlock.blockLength;
      const [, , encapsulated, certificates, signerInfos] = signedData.valueBlock.value as [unknown, unknown, asn1js.Sequence, asn1js.Constructed, asn1js.Set];
      const eContent = (encapsulated.valueBlock.value[1] as asn1js.Constructed).valueBlock.value[0]!;
      const ranges = [
        [start(signedData), headerEnd(eContent)],
        [start(certificates), headerEnd(certificates)],
        [start(signerInfos), headerEnd(signerInfos.valueBlock.value[0]!)],
      ];
      let refused = 0;
      for (const [from, to] of ranges) {
        for (let index = from!; index < to!; index++) {
          const changed = tsr.slice();
          changed[index]! ^= 0x01;
          if (pkijsReadsSignedData(changed)) continue;
          refused++;
          expect((await checkTimestamp(changed, manifest, FIXTURE_CHAIN_PEM, { reuse })).signatureValid, `byte ${index}`).toBe(false);
        }
      }
      expect(refused).toBeGreaterThan(20);
    });

    it("refuses a token carrying revocation information pkijs cannot read, as pkijs's SignedData does, and reads one it can", async () => {
      const reuse = new TimestampCheckReuse();
      expect((await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM, { reuse })).chainTrusted).toBe(true);
      /** The fixture's response with `crls` ([1], after the certificates) added to its SignedData, re-encoded. */
      const withCrls = (...choices: asn1js.AsnType[]) => {
        const response = asn1js.fromBER(tsr.slice()).result as asn1js.Sequence;
        const signedData = ((response.valueBlock.value[1] as asn1js.Sequence).valueBlock.value[1] as asn1js.Constructed).valueBlock.value[0] as asn1js.Sequence;
        signedData.valueBlock.value.splice(4, 0, new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: choices }));
        return new Uint8Array(response.toBER());
      };
      // An OtherRevocationInfoFormat ([1] IMPLICIT SEQUENCE { OID, ANY }) pkijs reads, then a CRL that is an empty SEQUENCE.
      const readable = withCrls(
        new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.ObjectIdentifier({ value: "1.2.3" }), new asn1js.Null()] }),
      );
      const unreadable = withCrls(new asn1js.Sequence({ value: [] }));
      for (const [token, readByPkijs] of [
        [readable, true],
        [unreadable, false],
      ] as const) {
        expect(() => new pkijs.SignedData({ schema: pkijs.TimeStampResp.fromBER(token.slice().buffer).timeStampToken!.content })).toSatisfy(
          (read: () => void) => {
            try {
              read();
              return readByPkijs;
            } catch {
              return !readByPkijs;
            }
          },
        );
        expect((await checkTimestamp(token, manifest, FIXTURE_CHAIN_PEM, { reuse })).signatureValid).toBe(readByPkijs);
        expect((await checkTimestamp(token, manifest, FIXTURE_CHAIN_PEM)).signatureValid).toBe(readByPkijs);
      }
    });

    it("refuses a token carrying a certificate choice pkijs cannot read, as pkijs's SignedData does", async () => {
      const reuse = new TimestampCheckReuse();
      expect((await checkTimestamp(tsr, manifest, FIXTURE_CHAIN_PEM, { reuse })).chainTrusted).toBe(true);
      // A v1 attribute certificate ([1] IMPLICIT) that is an empty SEQUENCE, beside the signer's certificate.
      const response = asn1js.fromBER(tsr.slice()).result as asn1js.Sequence;
      const signedData = ((response.valueBlock.value[1] as asn1js.Sequence).valueBlock.value[1] as asn1js.Constructed).valueBlock.value[0] as asn1js.Sequence;
      (signedData.valueBlock.value[3] as asn1js.Constructed).valueBlock.value.push(
        new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.Sequence({ value: [new asn1js.Integer({ value: 0 })] })] }),
      );
      const token = new Uint8Array(response.toBER());
      expect(() => new pkijs.SignedData({ schema: pkijs.TimeStampResp.fromBER(token.slice().buffer).timeStampToken!.content })).toThrow();
      expect((await checkTimestamp(token, manifest, FIXTURE_CHAIN_PEM, { reuse })).signatureValid).toBe(false);
      expect((await checkTimestamp(token, manifest, FIXTURE_CHAIN_PEM)).signatureValid).toBe(false);
    });

    it("validates the chain afresh at an instant outside a certificate's validity, where it is not trusted", async () => {
      const reuse = new TimestampCheckReuse();
      const sigstage = fromBase64(sigstageTsr);
      expect((await checkTimestamp(sigstage, hello, sigstageChain, { reuse })).chainTrusted).toBe(true);
      for (const at of [new Date("2000-01-01T00:00:00Z"), new Date("2200-01-01T00:00:00Z")]) {
        expect(await checkTimestamp(sigstage, hello, sigstageChain, { reuse, at })).toMatchObject({
          signatureValid: true,
          chainTrusted: false,
          rootCertificate: null,
        });
      }
    });
  });
});
