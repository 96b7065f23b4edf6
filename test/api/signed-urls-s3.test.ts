import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { Buffer } from "node:buffer";
import { SignatureV4 } from "@smithy/signature-v4";
import { Sha256 } from "@aws-crypto/sha256-js";
import type { Env } from "../../src/env.ts";
import { issueDeleteUrl, issueDownloadUrl, issueUploadUrl, type SignedRequest } from "../../src/storage/objects/signed-urls.ts";
import { capturePageCsp } from "../../src/routes/capture/page.ts";

/**
 * The production backend of signed URLs (R2's S3 API, signed with aws4fetch) never meets real R2 here.
 * These tests recompute every presigned URL with AWS's own SigV4 signer (@smithy/signature-v4, the one
 * inside the AWS SDK for JavaScript) from the grant alone, and require the same signature: a URL R2
 * accepts is one whose signature AWS's algorithm reproduces.
 */

// The example key pair of AWS's own documentation: well-formed, and nobody's.
const ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const ACCOUNT_HOST = "0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com";

const s3Env = (bucket?: string): Env => ({
  ...env,
  R2_ACCESS_KEY_ID: ACCESS_KEY_ID,
  R2_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
  R2_S3_ENDPOINT: `https://${ACCOUNT_HOST}/`,
  R2_BUCKET_NAME: bucket,
});

const signer = new SignatureV4({
  credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
  region: "auto",
  service: "s3",
  sha256: Sha256,
  // As the AWS SDK's S3 client does: S3 object paths are encoded once, not twice.
  uriEscapePath: false,
});

type SmithyRequest = Parameters<SignatureV4["presign"]>[0];

/** RFC 3986 escaping of one path segment, as the AWS SDK escapes S3 object keys (@smithy/util-uri-escape). */
const escapeSegment = (segment: string) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const bytesToHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

async function sha256Of(bytes: Uint8Array): Promise<Uint8Array> {
  const hash = new Sha256();
  hash.update(bytes);
  return hash.digest();
}

/** `20261120T101112Z` → Date. */
function amzDate(value: string): Date {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) throw new Error(`not an X-Amz-Date: ${value}`);
  const [, y, mo, d, h, mi, s] = match.map(Number);
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}

interface Expected {
  method: "PUT" | "GET" | "DELETE";
  bucket: string;
  key: string;
  /** Query of the operation itself (multipart part), before signing. */
  query?: Record<string, string>;
  /** Headers the holder must send, exactly as sent (names as we return them). */
  headers: Record<string, string>;
  expiresIn: number;
}

/**
 * AWS's presigned URL for the request the grant describes, signed at `signingDate`. The headers stay
 * headers and are signed (by default smithy would hoist every `x-amz-*` header into the query string,
 * where R2 would not treat `x-amz-checksum-sha256` as the body's checksum), and the payload is
 * UNSIGNED-PAYLOAD, as S3 takes it for a presigned URL that carries no `X-Amz-Content-Sha256`.
 */
async function smithyPresign(expected: Expected, signingDate: Date) {
  const request: SmithyRequest = {
    method: expected.method,
    protocol: "https:",
    hostname: ACCOUNT_HOST,
    path: `/${expected.bucket}/${expected.key.split("/").map(escapeSegment).join("/")}`,
    query: { ...expected.query },
    headers: { host: ACCOUNT_HOST, ...expected.headers, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
  };
  const kept = Object.keys(expected.headers).map((name) => name.toLowerCase());
  const presigned = await signer.presign(request, {
    signingDate,
    expiresIn: expected.expiresIn,
    unhoistableHeaders: new Set([...kept, "x-amz-content-sha256"]),
    // Read by smithy as the payload hash, but neither hoisted nor signed: our URLs do not carry it.
    unsignableHeaders: new Set(["x-amz-content-sha256"]),
  });
  return { query: presigned.query ?? {}, headers: presigned.headers };
}

/** Our URL taken apart, and AWS's URL for the same request at the same instant. */
async function compare(signed: SignedRequest, expected: Expected) {
  const url = new URL(signed.url);
  const ours = Object.fromEntries(url.searchParams);
  const date = ours["X-Amz-Date"]!;
  const theirs = await smithyPresign(expected, amzDate(date));
  return { url, ours, theirs, signingDate: amzDate(date) };
}

function credentialParts(credential: string) {
  const [accessKeyId, day, region, service, terminator] = credential.split("/");
  return { accessKeyId, day, region, service, terminator };
}

describe("R2 S3-API presigned URLs agree with AWS's SigV4 signer (@smithy/signature-v4)", () => {
  it("a single-object upload signs host, Content-Type and the body's SHA-256, and only those bytes match", async () => {
    const body = new TextEncoder().encode("the bytes of one photograph");
    const digest = await sha256Of(body);
    const sha256 = bytesToHex(digest);
    const key = "captures/ses_01JABCDEF/fil_01JXYZ";
    const before = Date.now();
    const signed = await issueUploadUrl(s3Env("proof-files-eu"), { key, sha256, size: body.length, contentType: "image/jpeg", expiresInSeconds: 900 });

    expect(signed.method).toBe("PUT");
    const checksum = Buffer.from(digest).toString("base64");
    expect(checksum).toBe(Buffer.from(sha256, "hex").toString("base64"));
    expect(signed.headers).toEqual({ "Content-Type": "image/jpeg", "x-amz-checksum-sha256": checksum });

    // The body's exact length is signed too; browsers send Content-Length themselves, so it is not returned.
    const sent = { ...signed.headers, "Content-Length": String(body.length) };
    const { url, ours, theirs, signingDate } = await compare(signed, {
      method: "PUT",
      bucket: "proof-files-eu",
      key,
      headers: sent,
      expiresIn: 900,
    });
    expect(url.origin).toBe(`https://${ACCOUNT_HOST}`);
    expect(url.pathname).toBe(`/proof-files-eu/${key}`);
    expect(Math.abs(signingDate.getTime() - before)).toBeLessThan(60_000);

    expect(ours["X-Amz-Algorithm"]).toBe("AWS4-HMAC-SHA256");
    expect(ours["X-Amz-Expires"]).toBe("900");
    const credential = credentialParts(ours["X-Amz-Credential"]!);
    expect(credential).toEqual({ accessKeyId: ACCESS_KEY_ID, day: ours["X-Amz-Date"]!.slice(0, 8), region: "auto", service: "s3", terminator: "aws4_request" });
    const signedHeaders = ours["X-Amz-SignedHeaders"]!.split(";");
    expect(signedHeaders).toEqual(["content-length", "content-type", "host", "x-amz-checksum-sha256"]);
    // The checksum is a signed header, not a query parameter: R2 checks the body against it.
    expect(ours["x-amz-checksum-sha256"]).toBeUndefined();

    // AWS's signer, from the grant alone, reaches the same URL: every parameter, and the signature.
    expect(theirs.query).toEqual(ours);
    expect(ours["X-Amz-Signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(theirs.query["X-Amz-Signature"]).toBe(ours["X-Amz-Signature"]);
    expect(theirs.headers).toEqual({ host: ACCOUNT_HOST, ...sent, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" });

    // Another file's checksum, or another declared type, is another signature: R2 refuses the request.
    const otherChecksum = Buffer.from(await sha256Of(new TextEncoder().encode("other bytes"))).toString("base64");
    const tampered = await smithyPresign(
      { method: "PUT", bucket: "proof-files-eu", key, headers: { ...sent, "x-amz-checksum-sha256": otherChecksum }, expiresIn: 900 },
      signingDate,
    );
    expect(tampered.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
    const retyped = await smithyPresign(
      { method: "PUT", bucket: "proof-files-eu", key, headers: { ...sent, "Content-Type": "text/html" }, expiresIn: 900 },
      signingDate,
    );
    expect(retyped.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
    const otherKey = await smithyPresign({ method: "PUT", bucket: "proof-files-eu", key: `${key}x`, headers: sent, expiresIn: 900 }, signingDate);
    expect(otherKey.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
    const longer = await smithyPresign(
      { method: "PUT", bucket: "proof-files-eu", key, headers: { ...sent, "Content-Length": String(body.length + 1) }, expiresIn: 900 },
      signingDate,
    );
    expect(longer.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
  });

  it("a multipart part URL signs its partNumber, its uploadId and its exact length", async () => {
    const key = "captures/ses_01JABCDEF/fil_video";
    // R2 upload ids are opaque; this one needs escaping in a query string.
    const uploadId = "AJ6Lk2x+Qv/8w==~upload id";
    const signed = await issueUploadUrl(s3Env(), {
      key,
      sha256: "a".repeat(64),
      contentType: "video/mp4",
      size: 16 * 1024 * 1024,
      part: { uploadId, partNumber: 3 },
      expiresInSeconds: 3600,
    });

    expect(signed.method).toBe("PUT");
    // A part carries no whole-file checksum; the assembled file's SHA-256 is checked at completion.
    expect(signed.headers).toEqual({ "Content-Type": "video/mp4" });
    const sent = { ...signed.headers, "Content-Length": String(16 * 1024 * 1024) };
    const { url, ours, theirs } = await compare(signed, {
      method: "PUT",
      bucket: "proof-sealing-files",
      key,
      query: { partNumber: "3", uploadId },
      headers: sent,
      expiresIn: 3600,
    });
    expect(url.pathname).toBe(`/proof-sealing-files/${key}`);
    expect(ours.partNumber).toBe("3");
    expect(ours.uploadId).toBe(uploadId);
    // Without the signed length a part URL would take up to 5 GiB until the completion noticed.
    expect(ours["X-Amz-SignedHeaders"]).toBe("content-length;content-type;host");
    expect(theirs.query).toEqual(ours);
    expect(theirs.query["X-Amz-Signature"]).toBe(ours["X-Amz-Signature"]);

    // Another part number or another upload is another signature.
    const signingDate = amzDate(ours["X-Amz-Date"]!);
    const expected = { method: "PUT" as const, bucket: "proof-sealing-files", key, headers: sent, expiresIn: 3600 };
    const otherPart = await smithyPresign({ ...expected, query: { partNumber: "4", uploadId } }, signingDate);
    expect(otherPart.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
    const otherUpload = await smithyPresign({ ...expected, query: { partNumber: "3", uploadId: "another" } }, signingDate);
    expect(otherUpload.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
    const bigger = await smithyPresign(
      { ...expected, headers: { ...sent, "Content-Length": String(5 * 1024 ** 3) }, query: { partNumber: "3", uploadId } },
      signingDate,
    );
    expect(bigger.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
  });

  it("a download URL is a GET that signs only the host", async () => {
    const key = "proofs/prf_01JABC/sealed.jpg";
    const signed = await issueDownloadUrl(s3Env("proof-files-eu"), key, 600);
    expect(signed.method).toBe("GET");
    expect(signed.headers).toEqual({});
    const { ours, theirs } = await compare(signed, { method: "GET", bucket: "proof-files-eu", key, headers: {}, expiresIn: 600 });
    expect(ours["X-Amz-SignedHeaders"]).toBe("host");
    expect(theirs.query).toEqual(ours);
    expect(theirs.query["X-Amz-Signature"]).toBe(ours["X-Amz-Signature"]);

    // The same URL for a PUT would be another signature: a download URL writes nothing.
    const asPut = await smithyPresign({ method: "PUT", bucket: "proof-files-eu", key, headers: {}, expiresIn: 600 }, amzDate(ours["X-Amz-Date"]!));
    expect(asPut.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
  });

  it("the sealer's discard URL is a DELETE of that one key, signing only the host", async () => {
    const key = "proofs/prf_01JABC/runs/run_01JXYZ/files/med_1.jpg";
    const signed = await issueDeleteUrl(s3Env("proof-files-eu"), key, 1800);
    expect(signed.method).toBe("DELETE");
    expect(signed.headers).toEqual({});
    const { ours, theirs } = await compare(signed, { method: "DELETE", bucket: "proof-files-eu", key, headers: {}, expiresIn: 1800 });
    expect(ours["X-Amz-SignedHeaders"]).toBe("host");
    expect(theirs.query["X-Amz-Signature"]).toBe(ours["X-Amz-Signature"]);
    const asGet = await smithyPresign({ method: "GET", bucket: "proof-files-eu", key, headers: {}, expiresIn: 1800 }, amzDate(ours["X-Amz-Date"]!));
    expect(asGet.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
  });

  it("keys that need escaping are signed over their S3 canonical (RFC 3986) path", async () => {
    const key = "exports/Report (final) 2026+v2!*'~.pdf";
    const signed = await issueDownloadUrl(s3Env(), key, 300);
    const { ours, theirs } = await compare(signed, { method: "GET", bucket: "proof-sealing-files", key, headers: {}, expiresIn: 300 });
    expect(decodeURIComponent(new URL(signed.url).pathname)).toBe(`/proof-sealing-files/${key}`);
    expect(theirs.query["X-Amz-Signature"]).toBe(ours["X-Amz-Signature"]);
  });

  it("X-Amz-Expires is the grant's lifetime, and expiresAt agrees with it", async () => {
    for (const expiresInSeconds of [60, 900, 7 * 24 * 3600]) {
      const before = Date.now();
      const upload = await issueUploadUrl(s3Env(), { key: "captures/a/b", sha256: "0".repeat(64), contentType: "image/png", expiresInSeconds });
      const after = Date.now();
      const ours = Object.fromEntries(new URL(upload.url).searchParams);
      expect(ours["X-Amz-Expires"]).toBe(String(expiresInSeconds));
      const expiresAt = Date.parse(upload.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + expiresInSeconds * 1000);
      expect(expiresAt).toBeLessThanOrEqual(after + expiresInSeconds * 1000);
      const theirs = await smithyPresign(
        { method: "PUT", bucket: "proof-sealing-files", key: "captures/a/b", headers: upload.headers, expiresIn: expiresInSeconds },
        amzDate(ours["X-Amz-Date"]!),
      );
      expect(theirs.query["X-Amz-Signature"]).toBe(ours["X-Amz-Signature"]);

      const download = await issueDownloadUrl(s3Env(), "captures/a/b", expiresInSeconds);
      expect(new URL(download.url).searchParams.get("X-Amz-Expires")).toBe(String(expiresInSeconds));
    }
    // The signed expiry is part of the signature: the same URL with a longer lifetime would not verify.
    const upload = await issueUploadUrl(s3Env(), { key: "captures/a/b", contentType: "image/png", expiresInSeconds: 900 });
    const ours = Object.fromEntries(new URL(upload.url).searchParams);
    const longer = await smithyPresign(
      { method: "PUT", bucket: "proof-sealing-files", key: "captures/a/b", headers: upload.headers, expiresIn: 3600 },
      amzDate(ours["X-Amz-Date"]!),
    );
    expect(longer.query["X-Amz-Signature"]).not.toBe(ours["X-Amz-Signature"]);
  });

  it("lets the capture page reach the presigned URLs, and nothing else: its CSP allows exactly their origin", async () => {
    const upload = await issueUploadUrl(s3Env("proofs"), {
      key: "captures/cps_1/med_1",
      sha256: "a".repeat(64),
      contentType: "image/jpeg",
      expiresInSeconds: 900,
    });
    const connect = (csp: string) => /connect-src ([^;]+)/.exec(csp)![1]!.split(" ");
    expect(connect(capturePageCsp(s3Env("proofs")))).toEqual(["'self'", new URL(upload.url).origin]);
    expect(connect(capturePageCsp(env))).toEqual(["'self'"]);
  });
});
