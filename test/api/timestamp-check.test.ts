import { describe, expect, it } from "vitest";
import { checkTimestamp, directoryName, sequenceReader, signedAttributeFields, TAG, TimestampCheckReuse, tstInfoFields } from "../../shared/timestamp-check.ts";
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

  it("reads an OBJECT IDENTIFIER as asn1js does: an unfinished last arc, an arc padded with 0x80 or no arcs at all are refused", () => {
    const oid = (...contents: number[]) => {
      const reader = sequenceReader(new Uint8Array([TAG.SEQUENCE, contents.length + 2, TAG.OID, contents.length, ...contents]));
      return reader.oid(reader.next(TAG.OID));
    };
    expect(oid(0x2a, 0x86, 0x48)).toBe("1.2.840");
    expect(() => oid(0x2a, 0x86)).toThrow();
    expect(() => oid(0x2a, 0x80)).toThrow();
    expect(() => oid(0x2a, 0x80, 0x01)).toThrow();
    expect(() => oid()).toThrow();
  });

  describe("the known-shape reading leaves to the full check what it does not read to the end (these fields are signed: no altered token reaches them)", () => {
    /** One DER element (contents under 256 bytes, which these are). */
    const der = (tag: number, ...contents: number[][]) => {
      const flat = contents.flat();
      return [tag, ...(flat.length < 0x80 ? [flat.length] : [0x81, flat.length]), ...flat];
    };
    const oid = (...arcs: number[]) => der(TAG.OID, arcs);
    const commonName = der(TAG.SEQUENCE, oid(0x55, 0x04, 0x03), der(0x0c, [0x54, 0x53, 0x41]));
    const name = (...rdns: number[][]) => der(TAG.DIRECTORY_NAME, der(TAG.SEQUENCE, ...rdns));
    /** The children of a SEQUENCE holding `fields`. */
    const reader = (...fields: number[][]) => sequenceReader(new Uint8Array(der(TAG.SEQUENCE, ...fields)));
    const readName = (...fields: number[][]) => directoryName(reader(...fields));

    it("reads a GeneralName only as a directoryName whose Name ends where it says", () => {
      expect(() => readName(name(der(TAG.SET, commonName)))).not.toThrow();
      // A uniformResourceIdentifier [6], an RDN with nothing in it, bytes after the last AttributeTypeAndValue or after the Name.
      expect(() => readName(der(0x86, [0x61]))).toThrow();
      expect(() => readName(name(der(TAG.SET)))).toThrow();
      expect(() => readName(name(der(TAG.SET, commonName, [TAG.NULL, 0])))).toThrow();
      expect(() => readName(der(TAG.DIRECTORY_NAME, der(TAG.SEQUENCE, der(TAG.SET, commonName)), [TAG.NULL, 0]))).toThrow();
      expect(() => readName(name(der(TAG.SET, der(TAG.SEQUENCE, oid(0x55, 0x04, 0x03), der(0x0c, [0x54]), [TAG.NULL, 0]))))).toThrow();
    });

    it("reads a TSTInfo's tsa only as a directoryName, and leaves a TSTInfo with extensions to the full check", () => {
      const genTime = der(TAG.GENERALIZED_TIME, [...new TextEncoder().encode("20250509115855Z")]);
      const imprint = der(TAG.SEQUENCE, der(TAG.SEQUENCE, oid(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01)), der(TAG.OCTET_STRING, [1]));
      const tstInfo = (...after: number[][]) =>
        tstInfoFields(new Uint8Array(der(TAG.SEQUENCE, der(TAG.INTEGER, [1]), oid(0x2a, 0x03), imprint, der(TAG.INTEGER, [7]), genTime, ...after)));
      expect(tstInfo(der(TAG.CONTEXT_0, name(der(TAG.SET, commonName))))).toMatchObject({ policy: "1.2.3", serial: new Uint8Array([7]) });
      expect(() => tstInfo(der(TAG.CONTEXT_0, der(0x86, [0x61])))).toThrow();
      expect(() => tstInfo(der(TAG.CONTEXT_1, der(TAG.SEQUENCE, der(TAG.SEQUENCE, oid(0x2a, 0x03), der(TAG.OCTET_STRING)))))).toThrow();
    });

    const contentType = der(
      TAG.SEQUENCE,
      oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x03),
      der(TAG.SET, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x04)),
    );
    const messageDigest = der(TAG.SEQUENCE, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x04), der(TAG.SET, der(TAG.OCTET_STRING, [1, 2, 3])));
    const signingTime = (...values: number[][]) => der(TAG.SEQUENCE, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x05), der(TAG.SET, ...values));
    const utcTime = der(TAG.UTC_TIME, [...new TextEncoder().encode("250509115855Z")]);
    /** SigningCertificateV2 with one ESSCertIDv2 (default SHA-256), its `rest` after the hash, then `after` the certs. */
    const essV2 = (rest: number[][], after: number[][] = []) =>
      der(
        TAG.SEQUENCE,
        oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, 0x2f),
        der(TAG.SET, der(TAG.SEQUENCE, der(TAG.SEQUENCE, der(TAG.SEQUENCE, der(TAG.OCTET_STRING, [9]), ...rest)), ...after)),
      );
    const issuerSerial = der(TAG.SEQUENCE, der(TAG.SEQUENCE, name(der(TAG.SET, commonName))), der(TAG.INTEGER, [5]));
    const attributes = (...list: number[][]) => signedAttributeFields(reader(...list));

    it("reads only the signed attributes a timestamp token carries, each with its one value read to its end", () => {
      expect(
        attributes(contentType, messageDigest, signingTime(utcTime), essV2([issuerSerial], [der(TAG.SEQUENCE, der(TAG.SEQUENCE, oid(0x2a, 0x03)))])),
      ).toEqual({
        messageDigest: new Uint8Array([1, 2, 3]),
        essAlgorithm: "2.16.840.1.101.3.4.2.1",
        essCertHash: new Uint8Array([9]),
      });
      // Another attribute type (1.2.3), contentType other than id-ct-TSTInfo (id-data), two signingTimes or one that is an INTEGER.
      expect(() => attributes(messageDigest, der(TAG.SEQUENCE, oid(0x2a, 0x03), der(TAG.SET, der(TAG.NULL))))).toThrow();
      expect(() =>
        attributes(
          der(TAG.SEQUENCE, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x03), der(TAG.SET, oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01))),
        ),
      ).toThrow();
      expect(() => attributes(signingTime(utcTime, utcTime))).toThrow();
      expect(() => attributes(signingTime(der(TAG.INTEGER, [1])))).toThrow();
      // An issuerSerial with bytes after its serial, policies with bytes after them.
      expect(() => attributes(essV2([der(TAG.SEQUENCE, der(TAG.SEQUENCE, name(der(TAG.SET, commonName))), der(TAG.INTEGER, [5]), [TAG.NULL, 0])]))).toThrow();
      expect(() => attributes(essV2([], [der(TAG.SEQUENCE), [TAG.NULL, 0]]))).toThrow();
    });
  });
});
